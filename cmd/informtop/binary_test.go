package main

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// binaryBudget bounds the bytes of code and tables (.text, .rodata,
// .gopclntab) in informtop's binary: a run maps most of them (at 20,000
// objects they were 40% of the dashboard's RSS), so they are memory
// every user pays. 37.5 MB when set.
const binaryBudget = 44_000_000

// The linker drops the methods nothing can call only while no reachable
// function looks methods up by name at run time (reflect's MethodByName
// with a name it cannot see, as text/template and html/template do).
// Once one is reachable it keeps every exported method of every type put
// in an interface: kubectl's typed clients and apply configurations,
// protobuf's, ~30 MB, mapped into every run. This test fails when one is
// reachable, and names the path from main to it.
func TestBinaryLetsTheLinkerDropUnusedMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("links informtop")
	}
	bin := filepath.Join(t.TempDir(), "informtop")
	build := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	deps, err := build.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := build.Start(); err != nil {
		t.Fatal(err)
	}
	// Each line is "from -> to", printed as the linker first reaches to.
	attr := regexp.MustCompile(` <[^>]*>`)
	from := map[string]string{}
	var lookups []string
	var other []string
	sc := bufio.NewScanner(deps)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		a, b, ok := strings.Cut(line, " -> ")
		if !ok {
			other = append(other, line)
			continue
		}
		if strings.Contains(b, "<ReflectMethod>") {
			lookups = append(lookups, attr.ReplaceAllString(b, ""))
		}
		b = attr.ReplaceAllString(b, "")
		if _, seen := from[b]; !seen {
			from[b] = attr.ReplaceAllString(a, "")
		}
	}
	if err := build.Wait(); err != nil {
		t.Fatalf("go build: %v\n%s", err, strings.Join(other, "\n"))
	}
	for _, fn := range lookups[:min(len(lookups), 3)] {
		path := []string{fn}
		for x := from[fn]; x != "" && len(path) < 40; x = from[x] {
			path = append(path, x)
		}
		t.Errorf("%s looks methods up by name and is reachable, so the linker keeps every exported method; reached through:\n  %s",
			fn, strings.Join(path, "\n  ← "))
	}

	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var size uint64
	for _, name := range []string{".text", ".rodata", ".gopclntab"} {
		if s := f.Section(name); s != nil {
			size += s.Size
		}
	}
	t.Logf("code and tables: %.1f MB (budget %.1f MB)", float64(size)/1e6, float64(binaryBudget)/1e6)
	if size > binaryBudget {
		t.Errorf("informtop's code and tables are %.1f MB, over their %.1f MB budget: a run maps most of them; see which packages grew with go tool nm -size -sort size", float64(size)/1e6, float64(binaryBudget)/1e6)
	}
}
