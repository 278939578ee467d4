package api_test

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/api"
)

// update writes the goldens the current api.Version lacks. It never
// rewrites one: a change to a version's JSON is a new version (see
// checkGolden); delete a golden first only if no agent has shipped with
// its version.
var update = flag.Bool("update", false, "write the missing testdata/<body>.v<api.Version>.json from the bodies the test builds")

// The wire bodies, each with every field set (fill), pinned by a golden
// file of the protocol version: testdata/frame.v1.json for Frame at
// Version "1". A body whose JSON differs from its version's golden is a
// new protocol version.
func TestWireJSONIsPinnedByVersion(t *testing.T) {
	for _, c := range []struct {
		name string
		body any
	}{
		{"frame", filled[api.Frame](t)},
		{"storeentries", filled[api.StoreEntries](t)},
		{"storegeneration", filled[api.StoreGeneration](t)},
		{"storeindex", filled[api.StoreIndex](t)},
		{"cut", filled[api.Cut](t)},
		{"error", filled[api.Error](t)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := json.MarshalIndent(c.body, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			if zeros := zeroValues(t, got); len(zeros) > 0 {
				t.Fatalf("the %s body has zero or empty values at %s: fill sets every field, so the golden would not pin them; teach fill the new field's type", c.name, strings.Join(zeros, ", "))
			}
			checkGolden(t, c.name, got)
		})
	}
}

// checkGolden compares got with testdata/<name>.v<Version>.json as JSON
// values (member order and spacing do not matter on the wire).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", fmt.Sprintf("%s.v%s.json", name, api.Version))
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("there is no golden for the %s body at protocol version %s (%s): run go test ./agent/api -run TestWireJSONIsPinnedByVersion -update to write it, and keep the goldens of the older versions", name, api.Version, path)
	}
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if diffs := jsonDiff("", w, g); len(diffs) > 0 {
		if len(diffs) > 20 {
			diffs = append(diffs[:20], fmt.Sprintf("and %d more", len(diffs)-20))
		}
		t.Errorf("the JSON of the %s body differs from %s, what agents and clients of protocol version %s exchange:\n\t%s\n"+
			"A change to the wire is a new protocol version: bump api.Version, then run go test ./agent/api -run TestWireJSONIsPinnedByVersion -update to add the new version's golden, and keep %s for the older version (-update never rewrites a golden).",
			name, path, api.Version, strings.Join(diffs, "\n\t"), path)
	}
}

// jsonDiff names the differences between two decoded JSON values, by path.
func jsonDiff(path string, want, got any) []string {
	at := path
	if at == "" {
		at = "(top)"
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %s, was an object", at, short(got))}
		}
		var out []string
		for _, k := range sortedKeys(w, g) {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inG:
				out = append(out, fmt.Sprintf("%s.%s: gone (was %s)", path, k, short(wv)))
			case !inW:
				out = append(out, fmt.Sprintf("%s.%s: new (%s)", path, k, short(gv)))
			default:
				out = append(out, jsonDiff(path+"."+k, wv, gv)...)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %s, was an array", at, short(got))}
		}
		if len(g) != len(w) {
			return []string{fmt.Sprintf("%s: %d elements, was %d", at, len(g), len(w))}
		}
		var out []string
		for i := range w {
			out = append(out, jsonDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: %s, was %s", at, short(got), short(want))}
	}
	return nil
}

func sortedKeys(a, b map[string]any) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// zeroValues lists the JSON paths whose value is zero, empty or null.
func zeroValues(t *testing.T, body []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if len(v) == 0 {
				out = append(out, path)
			}
			for k, e := range v {
				walk(path+"."+k, e)
			}
		case []any:
			if len(v) == 0 {
				out = append(out, path)
			}
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		default:
			if v == nil || v == false || v == "" || v == 0.0 {
				out = append(out, path)
			}
		}
	}
	walk("", v)
	slices.Sort(out)
	return out
}

// filled returns a T with every field set, recursively, to a value that
// depends only on the field's JSON path: a field added to any type in the
// body shows in the golden, and renaming or moving a Go field that keeps
// its JSON changes nothing.
func filled[T any](t *testing.T) T {
	t.Helper()
	var v T
	if err := fill(reflect.ValueOf(&v).Elem(), ""); err != nil {
		t.Fatal(err)
	}
	return v
}

var (
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	timeType      = reflect.TypeFor[time.Time]()
	// epoch is the time every time field is an offset from.
	epoch = time.Date(2026, time.March, 4, 5, 6, 7, 0, time.UTC)
)

// seed is a number from 1 to 9999 for a JSON path.
func seed(path string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(path))
	return h.Sum64()%9999 + 1
}

func fill(v reflect.Value, path string) error {
	t := v.Type()
	switch {
	case t == timeType:
		v.Set(reflect.ValueOf(epoch.Add(time.Duration(seed(path)) * time.Second)))
		return nil
	case t.Kind() != reflect.Struct && t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(textMarshaler) && t.Kind() != reflect.String:
		// An enumeration written as its name: the first value from 1 up
		// whose name reads back as itself.
		return fillEnum(v, path)
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString(strings.TrimPrefix(path, "."))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(seed(path)%uint64(1<<min(t.Bits()-1, 14)-1) + 1))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(seed(path)%uint64(1<<min(t.Bits(), 14)-1) + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(seed(path)) / 8) // exact in binary
	case reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
		return fill(v.Elem(), path)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(strings.TrimPrefix(path, ".")))
			return nil
		}
		v.Set(reflect.MakeSlice(t, 1, 1))
		return fill(v.Index(0), path+"[0]")
	case reflect.Array:
		for i := range v.Len() {
			if err := fill(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("%s: fill knows no map keyed by %s", path, t.Key())
		}
		k := reflect.New(t.Key()).Elem()
		k.SetString("key")
		e := reflect.New(t.Elem()).Elem()
		if err := fill(e, path+".key"); err != nil {
			return err
		}
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(k, e)
	case reflect.Struct:
		return fillStruct(v, path)
	default:
		return fmt.Errorf("%s: fill knows no %s (%s)", path, t.Kind(), t)
	}
	return nil
}

// fillStruct fills the fields JSON writes, by their JSON names; an
// embedded struct without a name is flattened, as JSON does.
func fillStruct(v reflect.Value, path string) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			if err := fill(v.Field(i), path); err != nil {
				return err
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		if err := fill(v.Field(i), path+"."+name); err != nil {
			return err
		}
	}
	return nil
}

func fillEnum(v reflect.Value, path string) error {
	for n := int64(1); n < 1024; n++ {
		switch v.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			v.SetInt(n)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			v.SetUint(uint64(n))
		default:
			return fmt.Errorf("%s: fill knows no enumeration of kind %s (%s)", path, v.Kind(), v.Type())
		}
		text, err := v.Addr().Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			continue
		}
		back := reflect.New(v.Type())
		u, ok := back.Interface().(encoding.TextUnmarshaler)
		if !ok {
			return nil // written only: any value it writes will do
		}
		if u.UnmarshalText(text) == nil && back.Elem().Equal(v) {
			return nil
		}
	}
	return fmt.Errorf("%s: no value of %s from 1 up reads back as itself", path, v.Type())
}

// Every golden, of this version or an older one, is JSON as the test
// writes it, so that a golden's diff in review reads line by line.
func TestGoldensAreIndented(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.v*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no goldens in testdata")
	}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, raw, "", "  "); err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !bytes.Equal(buf.Bytes(), raw) || !bytes.HasSuffix(raw, []byte("}\n")) {
			t.Errorf("%s is not indented as json.MarshalIndent(v, \"\", \"  \") writes it, with a final newline", p)
		}
	}
}

// A client of this build reads every version Reads admits: each older
// golden decodes into today's types with no field left over.
func TestReadsOlderVersionsItAdmits(t *testing.T) {
	for _, v := range []string{"1", "2", "3"} {
		if !api.Reads(v) {
			t.Fatalf("Reads(%q) is false", v)
		}
		b, err := os.ReadFile(filepath.Join("testdata", "frame.v"+v+".json"))
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var f api.Frame
		if err := dec.Decode(&f); err != nil {
			t.Errorf("a version %s frame does not decode: %v", v, err)
		}
		if len(f.Snapshots) == 0 || len(f.Events) == 0 {
			t.Errorf("a version %s frame decoded to %d informers and %d events", v, len(f.Snapshots), len(f.Events))
		}
	}
	if api.Reads("5") {
		t.Error("Reads admits a version that does not exist yet")
	}
}
