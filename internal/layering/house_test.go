package layering

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/source"
)

// house is docs/architecture.md's table of floors, layers and packages,
// drawn from floors and layers: top floor first, a row per layer.
func house() string {
	byLayer := map[layer][]string{}
	for p, l := range layers {
		byLayer[l] = append(byLayer[l], p)
	}
	ls := make([]layer, 0, len(floors))
	for l := range floors {
		ls = append(ls, l)
	}
	slices.SortFunc(ls, func(a, b layer) int {
		return cmp.Or(cmp.Compare(floors[b], floors[a]), cmp.Compare(a, b))
	})
	var b strings.Builder
	b.WriteString("| floor | layer | packages |\n| --- | --- | --- |\n")
	for _, l := range ls {
		slices.Sort(byLayer[l])
		fmt.Fprintf(&b, "| %d | %s | `%s` |\n", floors[l], l, strings.Join(byLayer[l], "`, `"))
	}
	return b.String()
}

// section is the text of docs/architecture.md under heading, up to the
// next heading of its level.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	_, after, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/architecture.md has no %q section", heading)
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		after = after[:i]
	}
	return after
}

// docs/architecture.md draws the house this package checks: its table is
// floors and layers, row for row, so a package placed, moved or added
// here shows there, and the versions it names are the code's.
func TestArchitectureDrawsTheHouse(t *testing.T) {
	doc := read(t, "docs/architecture.md")
	got := section(t, doc, "## The house")
	rows := regexp.MustCompile(`(?m)^\|.*\|$`).FindAllString(got, -1)
	if want := house(); strings.Join(rows, "\n")+"\n" != want {
		t.Errorf("docs/architecture.md's house differs from internal/layering's floors and layers; its table should read:\n%s", want)
	}
	for _, v := range []string{"model version " + source.ModelVersion, "wire version " + api.Version} {
		if !strings.Contains(doc, v) {
			t.Errorf("docs/architecture.md does not say %q", v)
		}
	}
}

// The package map names every package of the house, and every example.
func TestArchitectureNamesEveryPackageAndExample(t *testing.T) {
	doc := read(t, "docs/architecture.md")
	block := section(t, doc, "## Packages")
	named := func(p string) bool {
		return regexp.MustCompile(`(^|[\s(])` + regexp.QuoteMeta(p) + `/?([\s),]|$)`).MatchString(block)
	}
	for p := range layers {
		if !named(p) {
			t.Errorf("docs/architecture.md's package map does not name %s", p)
		}
	}
	ents, err := os.ReadDir(filepath.Join(root, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() || e.Name() == "internal" {
			continue
		}
		n++
		if !named("examples/" + e.Name()) {
			t.Errorf("docs/architecture.md's package map does not name the example examples/%s", e.Name())
		}
	}
	if n < 2 {
		t.Fatalf("found %d examples: the walk missed them", n)
	}
}
