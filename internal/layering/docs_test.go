package layering

import (
	"encoding"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/informtop/informtop/agent/report"
)

// root is the repository's top directory, seen from this package.
const root = "../.."

// readmeLimit is the most README.md may weigh: the pitch, the two commands,
// a few examples and the links; everything else belongs in docs/.
const readmeLimit = 10 * 1024

// specRef is a reference to the spec, a file users don't have: its name
// followed by a section sign (also when a comment wraps between the two),
// or its file name. Spelled with escapes so this file does not match.
var specRef = regexp.MustCompile(`SPEC(\s|//)*\x{00A7}|SPEC\.md`)

// docs lists README.md and every file under docs/, relative to root.
func docs(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadmeIsShort(t *testing.T) {
	if n := len(read(t, "README.md")); n > readmeLimit {
		t.Errorf("README.md is %d bytes, more than %d: move the detail to docs/", n, readmeLimit)
	}
}

var (
	fence      = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	inlineCode = regexp.MustCompile("`[^`\n]*`")
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// links returns the targets of the markdown links of text, code left out.
func links(text string) []string {
	text = fence.ReplaceAllString(text, "")
	text = inlineCode.ReplaceAllString(text, "")
	var out []string
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestDocLinksResolve(t *testing.T) {
	for _, rel := range docs(t) {
		if !strings.HasSuffix(rel, ".md") {
			continue
		}
		for _, target := range links(read(t, rel)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := filepath.Join(filepath.Dir(rel), filepath.FromSlash(path))
			if path == "" {
				file = rel
			}
			if _, err := os.Stat(filepath.Join(root, file)); err != nil {
				t.Errorf("%s links to %s, which does not exist", rel, target)
				continue
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !slices.Contains(anchors(read(t, file)), anchor) {
				t.Errorf("%s links to %s, but %s has no such heading", rel, target, filepath.ToSlash(file))
			}
		}
	}
}

var heading = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t]*$`)

// anchors lists the fragment each heading of a markdown text gets on
// GitHub: lower case, punctuation but '-' and '_' dropped, spaces as '-',
// a repeated one suffixed -1, -2, ….
func anchors(text string) []string {
	text = fence.ReplaceAllString(text, "")
	seen := map[string]int{}
	var out []string
	for _, m := range heading.FindAllStringSubmatch(text, -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a += "-" + strconv.Itoa(n)
		} else {
			seen[a] = 1
		}
		out = append(out, a)
	}
	return out
}

func TestAnchors(t *testing.T) {
	got := anchors("# Real clusters\n## Is the cache right? (`--verify`, `v`)\n```\n# not a heading\n```\n## client-go's log (`--log-file`, `-v`)\n## Fields\n### Fields\n")
	want := []string{"real-clusters", "is-the-cache-right---verify-v", "client-gos-log---log-file--v", "fields", "fields-1"}
	if !slices.Equal(got, want) {
		t.Errorf("anchors = %q, want %q", got, want)
	}
}

func TestLinksFound(t *testing.T) {
	got := links("see [a](a.md) and [b](docs/b.md#x), not `[c](c.md)`\n```\n[d](d.md)\n```\n[e](https://e.example)")
	if want := []string{"a.md", "docs/b.md#x", "https://e.example"}; !slices.Equal(got, want) {
		t.Errorf("links = %q, want %q", got, want)
	}
}

func TestNoSpecReferences(t *testing.T) {
	files := docs(t)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasSuffix(rel, ".md") && !slices.Contains(files, rel):
			files = append(files, rel)
		case strings.HasSuffix(rel, ".go"):
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range files {
		text := read(t, rel)
		for _, loc := range specRef.FindAllStringIndex(text, -1) {
			line := 1 + strings.Count(text[:loc[0]], "\n")
			t.Errorf("%s:%d names SPEC, a file users don't have: %q", rel, line, text[loc[0]:loc[1]])
		}
	}
}

func TestSpecRefPattern(t *testing.T) {
	const spec = "SP" + "EC"
	for s, want := range map[string]bool{
		"print " + spec + " §8's report": true,
		"(" + spec + "\n\t// §8)":        true,
		"see " + spec + ".md":            true,
		"SPECIAL":                        false,
		"the spec of §8":                 false,
	} {
		if got := specRef.MatchString(s); got != want {
			t.Errorf("specRef.MatchString(%q) = %t, want %t", s, got, want)
		}
	}
}

// The report's JSON Schema describes report.Report field for field: every
// json name of its Go types is a property at the same place in the schema,
// every property is a field, and every field that is always written is
// required. Renaming, adding or removing a field without the schema fails.
func TestReportSchemaMatchesTypes(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal([]byte(read(t, "docs/report.schema.json")), &schema); err != nil {
		t.Fatalf("docs/report.schema.json is not JSON: %v", err)
	}
	if got := schema["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v, want draft 2020-12", got)
	}
	c := schemaCheck{t: t, root: schema}
	c.check(reflect.TypeFor[report.Report](), schema, "report")
	if c.structs < 10 {
		t.Errorf("checked only %d structs: the walk stopped early", c.structs)
	}
}

type schemaCheck struct {
	t       *testing.T
	root    map[string]any
	structs int
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

// resolve follows a local $ref ("#/$defs/Name").
func (c *schemaCheck) resolve(node map[string]any, path string) map[string]any {
	for {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		defs, _ := c.root["$defs"].(map[string]any)
		def, found := defs[name].(map[string]any)
		if !ok || !found {
			c.t.Fatalf("%s: $ref %q does not resolve", path, ref)
		}
		node = def
	}
}

func (c *schemaCheck) check(typ reflect.Type, node map[string]any, path string) {
	node = c.resolve(node, path)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == timeType || typ.Implements(textType) {
		return // a string in JSON
	}
	switch typ.Kind() {
	case reflect.Slice, reflect.Array:
		items, ok := node["items"].(map[string]any)
		if !ok {
			c.t.Errorf("%s: a list in Go, no items in the schema", path)
			return
		}
		c.check(typ.Elem(), items, path+"[]")
	case reflect.Map:
		values, ok := node["additionalProperties"].(map[string]any)
		if !ok {
			c.t.Errorf("%s: a map in Go, no additionalProperties in the schema", path)
			return
		}
		c.check(typ.Elem(), values, path+"{}")
	case reflect.Struct:
		c.structs++
		props, _ := node["properties"].(map[string]any)
		if props == nil {
			c.t.Errorf("%s: a struct in Go (%s), no properties in the schema", path, typ)
			return
		}
		var required []string
		if r, ok := node["required"].([]any); ok {
			for _, name := range r {
				required = append(required, name.(string))
			}
		}
		// A type with its own MarshalJSON (source.ServerStats) leaves
		// fields out as it sees fit: its required list is its own.
		checkRequired := !typ.Implements(marshalerType)
		fields := map[string]bool{}
		for _, f := range jsonFields(typ) {
			fields[f.name] = true
			at := path + "." + f.name
			sub, ok := props[f.name].(map[string]any)
			if !ok {
				c.t.Errorf("%s: field %s.%s is not in the schema", at, typ, f.goName)
				continue
			}
			if checkRequired && !f.omitempty && !slices.Contains(required, f.name) {
				c.t.Errorf("%s: always written, but not required in the schema", at)
			}
			if checkRequired && f.omitempty && slices.Contains(required, f.name) {
				c.t.Errorf("%s: omitempty in Go, but required in the schema", at)
			}
			c.check(f.typ, sub, at)
		}
		for name := range props {
			if !fields[name] {
				c.t.Errorf("%s.%s: in the schema, but %s has no such field", path, name, typ)
			}
		}
	}
}

type jsonField struct {
	name, goName string
	typ          reflect.Type
	omitempty    bool
}

// jsonFields lists the fields encoding/json writes for struct type typ:
// exported, not tagged "-", an untagged embedded struct's fields promoted.
func jsonFields(typ reflect.Type) []jsonField {
	var out []jsonField
	for f := range typ.Fields() {
		tag, hasTag := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		if f.Anonymous && !hasTag {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, jsonFields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, goName: f.Name, typ: f.Type, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty")})
	}
	return out
}
