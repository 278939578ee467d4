package tui

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeKeys(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestKeyMapMissingFileUsesDefaults(t *testing.T) {
	km, err := loadKeyMap(filepath.Join(t.TempDir(), "none.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(km.Quit.Keys(), []string{"q", "ctrl+c"}) {
		t.Fatalf("default quit keys %v", km.Quit.Keys())
	}
}

func TestKeyMapRemaps(t *testing.T) {
	path := writeKeys(t, "# my keys\nquit: [x, ctrl+q]\nexpire: X\nstore: [9]\nfilter: [\"alt+ctrl+f\"]\nstep: []\n")
	km, err := loadKeyMap(path)
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string][]string{
		"quit":   km.Quit.Keys(),
		"expire": km.Expire.Keys(),
		"store":  km.Store.Keys(),
		"filter": km.Filter.Keys(),
	}
	want := map[string][]string{
		"quit":   {"x", "ctrl+q"},
		"expire": {"X"},
		"store":  {"9"},
		"filter": {"ctrl+alt+f"}, // rewritten in the order Bubble Tea prints modifiers
	}
	if !reflect.DeepEqual(checks, want) {
		t.Fatalf("remapped keys %v, want %v", checks, want)
	}
	if km.Quit.Help().Key != "x/ctrl+q" {
		t.Fatalf("help shows %q for quit", km.Quit.Help().Key)
	}
	if len(km.Step.Keys()) != 0 {
		t.Fatalf("an empty list should unbind step, has %v", km.Step.Keys())
	}

	// The remapped keys drive the model.
	m, err := New(newFixtureSource(), Options{KeyMapPath: path})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, m: m, src: newFixtureSource()}
	closed := make(chan struct{})
	close(closed)
	m.done = closed
	h.size(80, 24)
	h.keys("9")
	if m.active != viewStore {
		t.Fatal("remapped store key 9 did not open the store")
	}
	h.keys("q")
	if h.quit {
		t.Fatal("q still quits after remapping quit to x")
	}
	h.keys("x")
	if !h.quit {
		t.Fatal("x does not quit")
	}
}

// YAML 1.1 reads a bare y or n as a boolean; in a key map they are keys,
// as the example the error messages give ("step: [n]") must work.
func TestKeyMapTakesYAndNAsLetters(t *testing.T) {
	km, err := loadKeyMap(writeKeys(t, "step: [n]\nexpire: y\nresync: [N, Y]\nstore: 9\nevents: [7]\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := [][]string{km.Step.Keys(), km.Expire.Keys(), km.Resync.Keys(), km.Store.Keys(), km.Events.Keys()}
	if want := [][]string{{"n"}, {"y"}, {"N", "Y"}, {"9"}, {"7"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("keys %q, want %q", got, want)
	}
	if _, err := loadKeyMap(writeKeys(t, "step: true\n")); err == nil || !strings.Contains(err.Error(), "step must be a key or a list of keys") {
		t.Fatalf("a boolean is not a key: %v", err)
	}
}

func TestKeyMapErrorsNameFileLineAndFix(t *testing.T) {
	cases := []struct {
		name string
		body string
		want []string
	}{
		{"unknown action", "help: ['?']\nqiut: [q]\n",
			[]string{"line 2", `unknown action "qiut"`, "known actions are quit, help,", "Fix the name or delete the line"}},
		{"conflict with a default", "filter: [s]\n",
			[]string{"line 1", `key "s" is bound to both "stall" and "filter"`, "give one of them another key"}},
		{"conflict inside the file", "pause: [p]\nresync: [p]\n",
			[]string{"line 2", `key "p" is bound to both "pause" and "resync"`}},
		{"bad key name", "help:\n  - F1\n  - qq\n",
			[]string{"line 1", `"qq" is not a key name`, "f1–f20"}},
		{"not a list", "quit: {a: b}\n",
			[]string{"line 1", "quit must be a key or a list of keys", `"quit: [q, ctrl+c]"`}},
		{"quit unbound", "quit: []\n",
			[]string{"line 1", "quit needs at least one key"}},
		{"not yaml", "quit: [q\n",
			[]string{"is not valid YAML", "line", "must map action names to key lists"}},
		{"not a mapping", "- q\n- x\n",
			[]string{"must map action names to key lists", "top level is not a mapping"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeKeys(t, tc.body)
			_, err := New(newFixtureSource(), Options{KeyMapPath: path})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, path) {
				t.Fatalf("error does not name the file: %s", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Fatalf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestDefaultKeyMapPathFollowsXDG(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	if got := defaultKeyMapPath(); got != "/xdg/informtop/keys.yaml" {
		t.Fatalf("with XDG_CONFIG_HOME: %s", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative/ignored")
	t.Setenv("HOME", "/home/u")
	if got := defaultKeyMapPath(); got != "/home/u/.config/informtop/keys.yaml" {
		t.Fatalf("without a usable XDG_CONFIG_HOME: %s", got)
	}
}

func TestDefaultKeysHaveNoConflicts(t *testing.T) {
	if err := checkConflicts(defaultKeyMap(), "defaults", nil); err != nil {
		t.Fatal(err)
	}
}

// A regular file larger than any key map is refused with a sentence, not
// read whole; one just under the limit is read as usual.
func TestKeyMapRefusesAHugeFile(t *testing.T) {
	body := "# " + strings.Repeat("x", maxKeyMapBytes) + "\nquit: [x]\n"
	path := writeKeys(t, body)
	_, err := loadKeyMap(path)
	if err == nil || !strings.Contains(err.Error(), "key map "+path+" is larger than 64 KiB") {
		t.Fatalf("a %d-byte key map: %v", len(body), err)
	}
	body = "quit: [Q]\n# " + strings.Repeat("x", maxKeyMapBytes-20) + "\n"
	km, err := loadKeyMap(writeKeys(t, body))
	if err != nil || !reflect.DeepEqual(km.Quit.Keys(), []string{"Q"}) {
		t.Fatalf("a %d-byte key map: %v", len(body), err)
	}
}

// A directory where the key map should be is refused, not read.
func TestKeyMapRefusesADirectory(t *testing.T) {
	path := t.TempDir()
	if _, err := loadKeyMap(path); err == nil || !strings.Contains(err.Error(), "is a directory, not a regular file") {
		t.Fatalf("a directory as key map: %v", err)
	}
}
