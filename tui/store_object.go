package tui

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// objectPane shows one cached object: its index entries, then its YAML in
// a scrollable viewport.
type objectPane struct {
	key string
	vp  viewport.Model
}

func newObjectPane(c *common, key string) *objectPane {
	vp := viewport.New()
	k := c.keys
	vp.KeyMap = viewport.KeyMap{
		Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown,
	}
	p := &objectPane{key: key, vp: vp}
	p.load(c)
	return p
}

// load re-reads the object; the scroll position survives a refresh.
func (p *objectPane) load(c *common) {
	sr := c.src.Store(c.data.current)
	st := c.styles
	var lines []string
	if sr == nil {
		lines = []string{"this source gives no access to the cache"}
	} else if obj, ok := sr.Get(p.key); !ok {
		lines = []string{st.warn.Render("not in the cache any more (deleted since you opened it)")}
	} else {
		lines = append(lines, indexEntryLines(c, sr.IndexEntriesOf(p.key))...)
		lines = append(lines, st.dim.Render(strings.Repeat("─", 20)))
		lines = append(lines, strings.Split(strings.TrimRight(objectYAML(obj), "\n"), "\n")...)
	}
	y := p.vp.YOffset()
	p.vp.SetContentLines(lines)
	p.vp.SetYOffset(y)
}

func indexEntryLines(c *common, entries map[string][]string) []string {
	st := c.styles
	if len(entries) == 0 {
		return []string{st.dim.Render("index entries: none")}
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []string{st.dim.Render("index entries:")}
	for _, n := range names {
		out = append(out, "  "+st.bold.Render(n)+" = "+strings.Join(entries[n], ", "))
	}
	return out
}

// describe is " · Secret · RV 9100" for the title line.
func (p *objectPane) describe(c *common) string {
	sr := c.src.Store(c.data.current)
	if sr == nil {
		return ""
	}
	obj, ok := sr.Get(p.key)
	if !ok {
		return ""
	}
	out := ""
	if kind := kindOf(obj); kind != "" {
		out += " · " + kind
	}
	if a, err := meta.Accessor(obj); err == nil && a.GetResourceVersion() != "" {
		out += " · RV " + a.GetResourceVersion()
	}
	return out
}

// kindOf names an object's kind: from its TypeMeta when set, else from its
// Go type (informers usually strip TypeMeta from typed objects).
func kindOf(obj any) string {
	if t, err := meta.TypeAccessor(obj); err == nil && t.GetKind() != "" {
		return t.GetKind()
	}
	name := fmt.Sprintf("%T", obj)
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

func (p *objectPane) setSize(w, h int) {
	p.vp.SetWidth(w)
	p.vp.SetHeight(h)
}

func (p *objectPane) update(msg tea.Msg, c *common) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(km, c.keys.Top):
			p.vp.GotoTop()
			return nil
		case key.Matches(km, c.keys.Bottom):
			p.vp.GotoBottom()
			return nil
		}
	}
	var cmd tea.Cmd
	p.vp, cmd = p.vp.Update(msg)
	return cmd
}

// redacted is what a Secret value is replaced with.
func redacted(n int) string { return fmt.Sprintf("<redacted, %d bytes>", n) }

// lastApplied is the kubectl annotation that carries a copy of the whole
// object as applied, Secret data included.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// objectYAML renders obj as YAML without managedFields and, for Secrets,
// without any data: values become their size.
func objectYAML(obj any) string {
	raw, err := json.Marshal(obj)
	if err != nil {
		return fmt.Sprintf("# cannot render this object: %v\n%#v", err, obj)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		// Not an object (a tombstone key, a string): show it as it is.
		out, _ := yaml.JSONToYAML(raw)
		return string(out)
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	if isSecret(obj, m) {
		redactSecret(m)
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return fmt.Sprintf("# cannot render this object: %v", err)
	}
	return string(out)
}

func isSecret(obj any, m map[string]any) bool {
	switch o := obj.(type) {
	case *corev1.Secret, corev1.Secret:
		return true
	case *unstructured.Unstructured:
		return o.GetKind() == "Secret"
	}
	if kind, _ := m["kind"].(string); kind == "Secret" {
		return true
	}
	// A typed object without TypeMeta: recognise a Secret by its shape.
	if t, err := meta.TypeAccessor(obj); err == nil && t.GetKind() == "Secret" {
		return true
	}
	return false
}

func redactSecret(m map[string]any) {
	if data, ok := m["data"].(map[string]any); ok {
		for k, v := range data {
			s, _ := v.(string)
			n := len(s)
			if b, err := base64.StdEncoding.DecodeString(s); err == nil {
				n = len(b)
			}
			data[k] = redacted(n)
		}
	}
	if data, ok := m["stringData"].(map[string]any); ok {
		for k, v := range data {
			s, _ := v.(string)
			data[k] = redacted(len(s))
		}
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			if s, ok := ann[lastApplied].(string); ok {
				ann[lastApplied] = redacted(len(s))
			}
		}
	}
}
