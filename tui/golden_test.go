package tui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenCases are the screens pinned by golden files: each key sequence is
// typed after the fixture's ten frames.
var goldenCases = []struct {
	name string
	keys []string
}{
	{"pipeline", nil},
	{"queue", []string{"2"}},
	{"listeners", []string{"3"}},
	{"store", []string{"4"}},
	{"events", []string{"5"}},
	{"queue-deltafifo-detail", []string{":", "s", "e", "c", "enter", "2", "j", "enter"}},
	{"listener-detail", []string{"3", "enter"}},
	{"store-filter", []string{"4", "/", "c", "o", "r", "e", "enter", "j"}},
	{"store-secret-yaml", []string{":", "s", "e", "c", "enter", "4", "enter"}},
	{"store-metadata-only-secret-yaml", []string{":", "s", "e", "c", "enter", "4", "j", "enter"}},
	{"store-index-browser", []string{"4", "i", "j", "enter"}},
	{"events-problems-all", []string{"5", "t", "t", "t", "t", "t", "a"}},
	{"event-detail", []string{"5", "t", "t", "t", "t", "t", "a", "k", "k", "enter"}},
	{"help", []string{"?"}},
	{"switcher", []string{":", "c", "m"}},
	{"step-narration", []string{"n"}},
	{"watch-down-403", []string{":", "c", "o", "n", "enter"}},
	{"narration-history", []string{"h"}},
	{"commands", []string{"ctrl+a"}},
	{"help-scrolled", []string{"?", "pgdown"}},
	{"listeners-by-pending", []string{"3", "P"}},
	{"store-by-age", []string{"4", "A"}},
}

var goldenSizes = [][2]int{{80, 24}, {160, 48}}

func TestGoldenScreens(t *testing.T) {
	for _, tc := range goldenCases {
		for _, sz := range goldenSizes {
			name := fmt.Sprintf("%s-%dx%d", tc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				h := fixture(t, sz[0], sz[1])
				h.keys(tc.keys...)
				got := h.screen()
				assertFits(t, got, sz[0], sz[1])
				golden(t, name, got)
			})
		}
	}
}

func TestGoldenTooSmall(t *testing.T) {
	h := fixture(t, 59, 16)
	got := h.screen()
	assertFits(t, got, 59, 16)
	if !strings.Contains(got, "terminal too small (need 60×16, have 59×16)") {
		t.Fatalf("missing too-small message:\n%s", got)
	}
	golden(t, "too-small-59x16", got)

	// Narrower than the message itself: it wraps, every number still shown.
	h.size(30, 10)
	got = h.screen()
	assertFits(t, got, 30, 10)
	flat := strings.Join(strings.Fields(got), " ")
	if !strings.Contains(flat, "terminal too small (need 60×16, have 30×10)") {
		t.Fatalf("wrapped too-small message lost words:\n%s", got)
	}
}

// assertFits fails unless s is exactly h lines of at most w cells: the
// guarantee that the terminal never wraps a line and no old text remains.
func assertFits(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), h, s)
	}
	for i, l := range lines {
		if n := width(l); n > w {
			t.Fatalf("line %d is %d cells wide, limit %d: %q", i+1, n, w, l)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui/ -run Golden -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("screen differs from %s (rerun with -update if intended)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
