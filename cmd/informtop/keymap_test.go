package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// A key map that cannot be used is bad input: exit 2 with its sentence,
// said before the dashboard starts, not the dashboard failing (exit 1).
func TestBadKeyMapIsBadInput(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "informtop"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "informtop", "keys.yaml"), []byte("quit: [q\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", home)
	o := newOptions()
	o.demo = true
	src, err := chooseSource(context.Background(), o, pflag.NewFlagSet("t", pflag.ContinueOnError))
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	err = present(context.Background(), src, o, &stderr, &stderr)
	var exit exitError
	if err == nil || errors.As(err, &exit) || !strings.Contains(err.Error(), "keys.yaml is not valid YAML") {
		t.Fatalf("present: %v (stderr %q); want the key map's sentence, which exits 2", err, stderr.String())
	}
}
