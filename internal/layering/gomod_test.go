package layering

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var goDirective = regexp.MustCompile(`(?m)^go ([0-9.]+)\s*$`)

// Every module of the repository states the same go line, but for the
// agent's: a controller links the agent on the oldest Go it supports, and
// the examples, which a user copies, build on that Go too. The rest
// (the root, the generators, the test harnesses' builds) are informtop's
// own and build with the root's Go.
func TestModulesAgreeOnTheirGoLine(t *testing.T) {
	goLine := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m := goDirective.FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s has no go line", path)
		}
		return string(m[1])
	}
	rootGo, agentGo := goLine(filepath.Join(root, "go.mod")), goLine(filepath.Join(root, "agent", "go.mod"))
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() != "go.mod" {
			return nil
		}
		found++
		rel, _ := filepath.Rel(root, path)
		want := rootGo
		if strings.HasPrefix(rel, "agent"+string(filepath.Separator)) || strings.HasPrefix(rel, "examples"+string(filepath.Separator)) {
			want = agentGo
		}
		if got := goLine(path); got != want {
			t.Errorf("%s says go %s; want go %s, as its kind of module does", rel, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 3 {
		t.Fatalf("found %d go.mod files: the walk missed the nested modules", found)
	}
}
