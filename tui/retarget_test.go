package tui

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/source"
)

// fakeRetarget records what ":" asked the source to watch.
type fakeRetarget struct {
	watched []string
	wheres  []source.Where
	ns      []source.Where
}

func (f *fakeRetarget) Watch(_ context.Context, resource string, where source.Where) (string, error) {
	f.watched, f.wheres = append(f.watched, resource), append(f.wheres, where)
	switch resource {
	case "svc":
		return "services", nil
	case "ns":
		return "namespaces", nil
	case "pods":
		return "pods", nil
	}
	return "", errors.New(`the server has no resource "` + resource + `"; did you mean services?`)
}

func (f *fakeRetarget) UseNamespace(_ context.Context, where source.Where) error {
	f.ns = append(f.ns, where)
	return nil
}

// retargetable is the fixture with Retargeting, as a cluster has it.
func retargetable(t *testing.T) (*harness, *fakeRetarget) {
	t.Helper()
	re := &fakeRetarget{}
	src := source.Decorate(newFixtureSource(), source.Decoration{Controls: func(c source.Controls) source.Controls {
		c.Retarget = re
		return c
	}})
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(fixtureFrames)
	return h, re
}

func colon(h *harness, line string) {
	h.keys(":")
	h.typeText(line)
	h.keys("enter")
}

// k9s habits: ":svc" watches services and shows them, ":ns shop" moves
// the namespaced informers, ":deploy -n shop" and ":pods -A" say where,
// ":ns" alone watches namespaces; a typo says so with the server's
// suggestion. None of them jumps to a fuzzy match.
func TestColonWatchesResourcesAndNamespaces(t *testing.T) {
	h, re := retargetable(t)
	h.m.active = viewStore
	colon(h, "svc")
	if h.m.c.data.current != "services" || h.m.active != viewStore {
		t.Fatalf(":svc shows informer %q in view %d", h.m.c.data.current, h.m.active)
	}
	if !strings.Contains(h.screen(), "watching services") {
		t.Errorf("no word on :svc:\n%s", h.screen())
	}
	// A frame read before services existed must not take the view away.
	h.frames(1)
	if h.m.c.data.current != "services" {
		t.Errorf("a frame without services moved the view to %q", h.m.c.data.current)
	}
	colon(h, "ns shop")
	colon(h, "deploy -n shop")
	colon(h, "pods -A")
	colon(h, "ns")
	want := []string{"svc", "deploy", "pods", "ns"}
	if strings.Join(re.watched, " ") != strings.Join(want, " ") {
		t.Errorf("watched %q, want %q", re.watched, want)
	}
	if len(re.ns) != 1 || re.ns[0] != (source.Where{Namespace: "shop"}) {
		t.Errorf(":ns shop asked for %+v", re.ns)
	}
	if re.wheres[1] != (source.Where{Namespace: "shop"}) || re.wheres[2] != (source.Where{All: true}) {
		t.Errorf("wheres %+v", re.wheres)
	}
	if h.m.active != viewStore {
		t.Errorf("the commands left the Store view for %d", h.m.active)
	}
	colon(h, "servces")
	if s := h.screen(); !strings.Contains(s, `no resource "servces"`) || !strings.Contains(s, "services") {
		t.Errorf("a typo's sentence:\n%s", s)
	}
	colon(h, "pods -x")
	if s := h.screen(); !strings.Contains(s, `"-x" is not a flag`) {
		t.Errorf("an unknown flag:\n%s", s)
	}
}

// Without Retargeting (the demo, attach, a replay) a word that names
// nothing says so and lists close names instead of jumping to the best
// fuzzy match; a unique prefix still runs its command.
func TestUnknownColonCommandSaysSo(t *testing.T) {
	h := fixture(t, 120, 24)
	h.m.active = viewPipeline
	colon(h, "ns")
	if h.m.active != viewPipeline {
		t.Fatalf(":ns jumped to view %d", h.m.active)
	}
	if s := h.screen(); !strings.Contains(s, `no informer, view or command is called "ns"`) {
		t.Errorf(":ns on the fixture:\n%s", s)
	}
	colon(h, "lis")
	if h.m.active != viewListeners {
		t.Errorf(":lis opened view %d", h.m.active)
	}
	colon(h, "ns shop")
	if s := h.screen(); !strings.Contains(s, ":ns changes the namespace") {
		t.Errorf(":ns shop on the fixture:\n%s", s)
	}
	colon(h, "ctx")
	if s := h.screen(); !strings.Contains(s, ":ctx connects to another kubeconfig context") {
		t.Errorf(":ctx on the fixture:\n%s", s)
	}
	// Moving the cursor picks the row, as before.
	h.keys(":")
	h.typeText("ev")
	h.keys("down", "up", "enter")
	if h.m.active != viewEvents {
		t.Errorf("the picked row opened view %d", h.m.active)
	}
}

// ":ctx" lists the contexts; ":ctx NAME" shows the new context's source
// in the same view; a context the kubeconfig lacks is refused with close
// names; a frame of the old source arriving late is dropped.
func TestColonCtxSwitchesTheSource(t *testing.T) {
	next := newFixtureSource()
	var asked []string
	h := newHarness(t, newFixtureSource())
	h.m.opts.Contexts = func() ([]string, string) { return []string{"kind-dev", "prod", "staging"}, "kind-dev" }
	h.m.opts.UseContext = func(_ context.Context, name string) (source.Source, error) {
		asked = append(asked, name)
		return next, nil
	}
	h.m.opts.KeyMapPath = filepath.Join(t.TempDir(), "absent.yaml")
	h.size(120, 24)
	h.frames(3)
	old := fetchData(h.src, 0, t0)
	old.from = h.m.c
	h.m.active = viewListeners
	colon(h, "ctx")
	if s := h.screen(); !strings.Contains(s, "contexts: kind-dev, prod, staging (in use: kind-dev)") {
		t.Errorf(":ctx:\n%s", s)
	}
	colon(h, "ctx prd")
	if s := h.screen(); !strings.Contains(s, `no context "prd"`) || !strings.Contains(s, "prod") || len(asked) != 0 {
		t.Errorf(":ctx prd asked %v:\n%s", asked, s)
	}
	colon(h, "ctx prod")
	if len(asked) != 1 || h.m.c.src != source.Source(next) || h.m.active != viewListeners {
		t.Fatalf(":ctx prod asked %v, shows the new source %v, view %d", asked, h.m.c.src == source.Source(next), h.m.active)
	}
	h.src = next
	h.frames(2)
	ticks := h.m.c.data.ticks
	h.send(old)
	if h.m.c.data.ticks != ticks {
		t.Error("a frame of the old context's source was shown")
	}
	if s := h.screen(); !strings.Contains(s, "switched to context prod") {
		t.Errorf("after :ctx prod:\n%s", s)
	}
}

// k9s' object keys on a source without a cluster: y opens the selected
// object's YAML in the Store; d, l and ctrl+d say why informtop does not,
// with the kubectl line to run;
// elsewhere y says where to go.
func TestK9sObjectKeys(t *testing.T) {
	h := fixture(t, 160, 48)
	h.keys("4", "j", "y")
	sv := h.m.views[viewStore].(*storeView)
	if sv.mode != storeObject {
		t.Fatalf("y left the Store in mode %d", sv.mode)
	}
	key := sv.obj.key
	h.keys("esc", "d")
	if sv.mode != storeList || !strings.Contains(lastLine(h.screen()), "d describes an object as kubectl describe does, through a cluster's API server; demo has none: y shows its YAML") {
		t.Fatalf("d without a describer opened mode %d and says %q", sv.mode, lastLine(h.screen()))
	}
	h.keys("l")
	ns, name, _ := strings.Cut(key, "/")
	if got := lastLine(h.screen()); !strings.Contains(got, "kubectl logs pods/"+name+" -n "+ns) {
		t.Errorf("l says %q", got)
	}
	h.keys("ctrl+d")
	if got := lastLine(h.screen()); !strings.Contains(got, "informtop never changes a cluster: to delete, run kubectl delete pods/"+name+" -n "+ns) {
		t.Errorf("ctrl+d says %q", got)
	}
	h.keys("1", "y")
	if got := lastLine(h.screen()); !strings.Contains(got, "y shows an object's YAML from the cache in the Store (4)") {
		t.Errorf("y on the Pipeline says %q", got)
	}
}
