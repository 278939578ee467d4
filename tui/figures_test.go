package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// A figure is never cut: on every golden screen no number (with its unit)
// ends in an ellipsis. A line too long for its place leaves a figure out,
// or abbreviates a label, instead.
func TestNoGoldenScreenCutsAFigure(t *testing.T) {
	cut := regexp.MustCompile(`(^|[ (])[0-9][0-9,.]*[a-zµ%/]*…`)
	paths, err := filepath.Glob(filepath.Join("testdata", "*.golden"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden screens: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cut.FindAllString(string(b), -1) {
			t.Errorf("%s cuts a figure: %q", p, m)
		}
	}
}
