package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/informtop/informtop/agent/shared/smallfile"
	"github.com/informtop/informtop/agent/shared/termsafe"
)

// defaultKeyMapPath is $XDG_CONFIG_HOME/informtop/keys.yaml, falling back to
// ~/.config as the XDG base directory spec says (also on macOS, where
// terminal tools are expected to live under ~/.config).
func defaultKeyMapPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "informtop", "keys.yaml")
}

// KeyMapError is a key map file that cannot be used: bad input, which a
// command reports as such (exit 2), not as the dashboard failing.
type KeyMapError struct{ err error }

func (e *KeyMapError) Error() string { return e.err.Error() }
func (e *KeyMapError) Unwrap() error { return e.err }

// CheckKeyMap loads the key map at path ("" for the default place) and
// returns its problem as a *KeyMapError, nil if it is usable or missing:
// a command asks before it starts anything the dashboard would show.
func CheckKeyMap(path string) error {
	if path == "" {
		path = defaultKeyMapPath()
	}
	_, err := loadKeyMap(path)
	return err
}

// loadKeyMap returns the default key map with the bindings of the file at
// path applied. A missing file is not an error; anything wrong inside one is,
// as a *KeyMapError: a sentence naming the file, the line and the fix.
func loadKeyMap(path string) (*keyMap, error) {
	km := defaultKeyMap()
	if path == "" {
		return km, nil
	}
	raw, err := readKeyFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return km, nil
	}
	if err != nil {
		return nil, &KeyMapError{err}
	}
	if err := applyKeyConfig(km, path, raw); err != nil {
		return nil, &KeyMapError{err}
	}
	return km, nil
}

// maxKeyMapBytes caps the key map file. Every action bound to a few keys,
// with comments, is about 2 KiB; a file past 64 KiB is something else (a
// log, a symlink to /dev/zero) and is refused before it fills memory.
const maxKeyMapBytes = 64 << 10

// readKeyFile reads the key map at path: a regular file (symlinks
// followed) of at most maxKeyMapBytes, so a FIFO or a device can neither
// hang the dashboard nor fill its memory. A missing file returns an error
// that is fs.ErrNotExist.
func readKeyFile(path string) ([]byte, error) {
	raw, err := smallfile.Read(path, maxKeyMapBytes)
	var notRegular *smallfile.NotRegularError
	switch {
	case err == nil:
		return raw, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, err
	case errors.As(err, &notRegular):
		return nil, fmt.Errorf("key map %s is %s, not a regular file; point it at a YAML file such as \"quit: [q, ctrl+c]\", or remove it to use the default keys", path, notRegular.What)
	case errors.Is(err, smallfile.ErrTooLarge):
		return nil, keyFileTooLarge(path)
	}
	return nil, unreadableKeyFile(path, err)
}

func keyFileTooLarge(path string) error {
	return fmt.Errorf("key map %s is larger than %d KiB, far more than a key map needs (a few lines such as \"quit: [q, ctrl+c]\"); point it at a key map, or remove it to use the default keys",
		path, maxKeyMapBytes>>10)
}

func unreadableKeyFile(path string, err error) error {
	return fmt.Errorf("key map %s: %v; fix its permissions or remove it to use the default keys", path, err)
}

// applyKeyConfig remaps km from the YAML in raw, a mapping of action names
// to a key or a list of keys, e.g. `quit: [q, ctrl+c]`. It is read as YAML
// 1.2, where a bare n or y is the letter, not a boolean as in YAML 1.1.
func applyKeyConfig(km *keyMap, path string, raw []byte) error {
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		var anyDoc any
		if yaml.Unmarshal(raw, &anyDoc) == nil {
			return fmt.Errorf("key map %s must map action names to key lists, e.g. \"quit: [q, ctrl+c]\", but its top level is not a mapping", path)
		}
		return fmt.Errorf("key map %s is not valid YAML (%v); it must map action names to key lists, e.g. \"quit: [q, ctrl+c]\"", path, termsafe.String(cleanYAMLError(err)))
	}
	byName := map[string]action{}
	var names []string
	for _, a := range km.actions() {
		byName[a.name] = a
		names = append(names, a.name)
	}
	// Sorted so the first problem reported does not depend on map order.
	actions := make([]string, 0, len(doc))
	for name := range doc {
		actions = append(actions, name)
	}
	sort.Slice(actions, func(i, j int) bool { return lineOf(raw, actions[i]) < lineOf(raw, actions[j]) })

	for _, name := range actions {
		where := fmt.Sprintf("key map %s line %d", path, lineOf(raw, name))
		a, ok := byName[name]
		if !ok {
			return fmt.Errorf("%s: unknown action %q; known actions are %s. Fix the name or delete the line",
				where, name, strings.Join(names, ", "))
		}
		keys, err := keyList(doc[name])
		if err != nil {
			return fmt.Errorf("%s: %s must be a key or a list of keys, e.g. \"%s: [%s]\"",
				where, name, name, strings.Join(a.binding.Keys(), ", "))
		}
		for i, k := range keys {
			canon, err := canonicalKey(k)
			if err != nil {
				return fmt.Errorf("%s: %s: %v", where, name, err)
			}
			keys[i] = canon
		}
		if len(keys) == 0 && name == "quit" {
			return fmt.Errorf("%s: quit needs at least one key, or there is no way out", where)
		}
		if len(keys) == 0 {
			a.binding.Unbind()
			continue
		}
		a.binding.SetKeys(keys...)
		a.binding.SetHelp(helpKeys(keys), a.binding.Help().Desc)
	}
	yieldDefaults(km, doc)
	return checkConflicts(km, path, raw)
}

// yielding are the actions whose default keys give way to a key the file
// binds elsewhere: k9s' object keys, added after key maps were written
// (one with "expire: y" must keep working). Any other default taken by the
// file is a conflict to fix, so no core key is lost without a word.
var yielding = map[string]bool{"yaml": true, "describe": true, "logs": true, "delete": true}

// yieldDefaults takes from the yielding actions the file leaves alone the
// keys it gives to others.
func yieldDefaults(km *keyMap, doc map[string]any) {
	taken := map[string]bool{}
	for _, a := range km.actions() {
		if _, ok := doc[a.name]; ok {
			for _, k := range a.binding.Keys() {
				taken[k] = true
			}
		}
	}
	for _, a := range km.actions() {
		if _, ok := doc[a.name]; ok || !yielding[a.name] {
			continue
		}
		var keep []string
		for _, k := range a.binding.Keys() {
			if !taken[k] {
				keep = append(keep, k)
			}
		}
		if len(keep) == len(a.binding.Keys()) {
			continue
		}
		if len(keep) == 0 {
			a.binding.Unbind()
			continue
		}
		a.binding.SetKeys(keep...)
		a.binding.SetHelp(helpKeys(keep), a.binding.Help().Desc)
	}
}

// checkConflicts fails when one key is bound to two actions; the message
// names both and the line of the configured one.
func checkConflicts(km *keyMap, path string, raw []byte) error {
	owner := map[string]string{}
	for _, a := range km.actions() {
		for _, k := range a.binding.Keys() {
			prev, taken := owner[k]
			if !taken {
				owner[k] = a.name
				continue
			}
			line := lineOf(raw, a.name)
			culprit, other := a.name, prev
			if line == 0 {
				line, culprit, other = lineOf(raw, prev), prev, a.name
			}
			return fmt.Errorf("key map %s line %d: key %q is bound to both %q and %q; give one of them another key in the file",
				path, line, k, other, culprit)
		}
	}
	return nil
}

func keyList(v any) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			k, ok := oneKey(e)
			if !ok {
				return nil, errors.New("not a key")
			}
			out = append(out, k)
		}
		return out, nil
	}
	if k, ok := oneKey(v); ok {
		return []string{k}, nil
	}
	return nil, errors.New("not a key list")
}

// oneKey is a key as YAML decoded it: a string, or a bare digit, which
// YAML reads as a number.
func oneKey(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case int:
		if v >= 0 && v <= 9 {
			return fmt.Sprint(v), true
		}
	}
	return "", false
}

var namedKeys = map[string]string{
	"enter": "enter", "return": "enter", "tab": "tab", "backspace": "backspace",
	"esc": "esc", "escape": "esc", "space": "space", "up": "up", "down": "down",
	"left": "left", "right": "right", "pgup": "pgup", "pageup": "pgup",
	"pgdown": "pgdown", "pagedown": "pgdown", "home": "home", "end": "end",
	"insert": "insert", "delete": "delete",
}

var fnKey = regexp.MustCompile(`^f([1-9]|1[0-9]|20)$`)

// modifierOrder is the order Bubble Tea prints modifiers in; a binding only
// matches when written the same way, so we rewrite "alt+ctrl+x" to "ctrl+alt+x".
var modifierOrder = []string{"ctrl", "alt", "shift", "meta", "hyper", "super"}

// canonicalKey validates one key name and returns it as Bubble Tea spells it.
func canonicalKey(k string) (string, error) {
	orig := k
	k = strings.TrimSpace(k)
	if k == "" {
		return "", errors.New("empty key name")
	}
	mods := map[string]bool{}
	for {
		i := strings.Index(k, "+")
		if i <= 0 || i == len(k)-1 {
			break
		}
		m := strings.ToLower(k[:i])
		if !isModifier(m) {
			break
		}
		mods[m] = true
		k = k[i+1:]
	}
	base := k
	switch {
	case utf8.RuneCountInString(k) == 1:
	case namedKeys[strings.ToLower(k)] != "":
		base = namedKeys[strings.ToLower(k)]
	case fnKey.MatchString(strings.ToLower(k)):
		base = strings.ToLower(k)
	default:
		return "", fmt.Errorf("%q is not a key name; use a single character, a modifier like \"ctrl+x\", or one of %s, f1–f20",
			orig, strings.Join(sortedNamedKeys(), ", "))
	}
	var b strings.Builder
	for _, m := range modifierOrder {
		if mods[m] {
			b.WriteString(m + "+")
		}
	}
	b.WriteString(base)
	return b.String(), nil
}

func isModifier(m string) bool {
	for _, o := range modifierOrder {
		if m == o {
			return true
		}
	}
	return false
}

func sortedNamedKeys() []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range namedKeys {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// lineOf finds the 1-based line where action is defined at the top level of
// the file; 0 when it is not there. The YAML decoder we use drops positions,
// and a top-level key is easy to find by its indentation.
func lineOf(raw []byte, action string) int {
	for i, l := range strings.Split(string(raw), "\n") {
		if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '#' {
			continue
		}
		name := strings.TrimSpace(strings.SplitN(l, ":", 2)[0])
		name = strings.Trim(name, `"'`)
		if name == action {
			return i + 1
		}
	}
	return 0
}

// cleanYAMLError drops the decoder's package prefix, keeping "line N: …".
func cleanYAMLError(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}
