package tui

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
	"github.com/informtop/informtop/agent/verify"
)

// evil is what a hostile API server or agent can put into any text it
// sends: clear the screen, write the clipboard (OSC 52), a C1 CSI that
// turns text red, a carriage return.
const evil = "\x1b[2J\x1b]52;c;aGk=\x07\u009b31m\r"

// hostile appends evil to every plain string reachable from v through
// exported fields, slices, arrays, pointers and maps (keys too), copying
// each slice, pointee and map first so that what v shares (the fixture's
// globals) stays as it was. Named string types (enums such as a
// callback's name) are left alone.
func hostile(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.Type() == reflect.TypeFor[string]() && v.CanSet() && v.String() != "" {
			v.SetString(v.String() + evil)
		}
	case reflect.Pointer:
		if !v.IsNil() && v.CanSet() {
			p := reflect.New(v.Elem().Type())
			p.Elem().Set(v.Elem())
			v.Set(p)
			hostile(p.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				hostile(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.IsNil() || !v.CanSet() {
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		v.Set(c)
		for i := range v.Len() {
			hostile(v.Index(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			hostile(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			hostile(k)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			hostile(e)
			out.SetMapIndex(k, e)
		}
		v.Set(out)
	}
}

func hostileOf[T any](x T) T {
	v := reflect.ValueOf(&x).Elem()
	hostile(v)
	return x
}

// hostileStore serves a store whose keys, labels, index names and values,
// kinds and YAML lines all end in evil, as an attached agent may send.
type hostileStore struct{ inner source.StoreReader }

func (s hostileStore) Generation() uint64 { return s.inner.Generation() }

func (s hostileStore) Entries() ([]source.Entry, uint64) {
	e, gen := s.inner.Entries()
	return hostileOf(e), gen
}

// plain is a key or name of hostileStore as the dashboard asks for it (the
// escaped form it shows) turned back into the inner store's.
func plain(s string) string { return strings.TrimSuffix(s, safe(evil)) }

func (s hostileStore) Object(key string) (source.Object, bool) {
	o, ok := s.inner.Object(plain(key))
	if !ok {
		return o, false
	}
	yaml := o.YAML
	o.YAML = ""
	o = hostileOf(o)
	for l := range strings.Lines(yaml) {
		o.YAML += strings.TrimSuffix(l, "\n") + evil + "\n"
	}
	return o, true
}

func (s hostileStore) IndexNames() []string { return hostileOf(s.inner.IndexNames()) }

func (s hostileStore) IndexValues(index string) []string {
	return hostileOf(s.inner.IndexValues(plain(index)))
}

func (s hostileStore) IndexKeys(index, value string) []string {
	return hostileOf(s.inner.IndexKeys(plain(index), plain(value)))
}

// hostileSource is the fixture with evil in everything the source sends.
func hostileSource() *controlledSource {
	cfg, ctl := hostileConfig()
	return newControlledSource(cfg, ctl)
}

func hostileConfig() (sourcetest.Config, *sourcetest.Controller) {
	cfg := fixtureConfig()
	// Texts the fixture leaves empty, so that they too turn hostile.
	for _, frame := range cfg.Frames {
		frame[0].Memory = source.Memory{Objects: 60, Sampled: 10, BytesPerObject: 100, EstimatedBytes: 6000,
			ByField: map[string]float64{"spec": 4000, "status": 2000}, SavedByTransforms: map[string]float64{"stripManagedFields": 100},
			WouldSaveByTransforms: map[string]float64{"stripLastApplied": 50}}
		audit := &frame[0].Listeners[2]
		audit.CacheMutations = 1
		audit.LastCacheMutation = &source.CacheMutation{Callback: "OnUpdate", Key: "default/web-7", Fields: []string{`metadata.labels.touched: "" → "yes"`}}
		audit.Frame = &source.StackFrame{Function: "main.audit", File: "/src/main.go", Line: 9}
	}
	cfg.Events = append(cfg.Events, source.Event{Seq: uint64(len(cfg.Events) + 1), Time: t0.Add(5 * time.Second), Type: source.EventStalled,
		Informer: "pods", Listener: "audit", Key: "default/web-7", Detail: "OnUpdate", Duration: 2 * time.Second, Frame: "main.audit (main.go:9)"})
	stores := cfg.Stores
	cfg.Stores = nil
	cfg = hostileOf(cfg)
	cfg.Stores = map[string]source.StoreReader{}
	for name, sr := range stores {
		cfg.Stores[name+evil] = hostileStore{sr}
	}
	cfg.Reasons = map[string]string{"configmaps" + evil: "forbidden: cannot list configmaps" + evil}
	cfg.Status = source.Status{State: source.Disconnected, Message: "agent gone" + evil}
	cfg.Workqueues = []source.Workqueue{{Name: "deployments" + evil, Depth: 3, Adds: 10}}
	cfg.Server = map[string]source.ServerStats{"pods" + evil: {Available: false, Reason: "no /metrics" + evil}}
	ctl := &sourcetest.Controller{}
	step := fixtureStep
	step.Journey = []string{"etcd revision 48214: MODIFIED", "reflector received MODIFIED default/web-3"}
	ctl.SetStepResult(hostileOf(step))
	batch := step
	batch.Kind, batch.Batching, batch.Batch, batch.Keys = source.StepBatch, true, 2, []string{"default/web-3", "default/web-4"}
	batch.Summary = []source.NotificationCount{{Listener: "fast", Callback: "OnUpdate", Count: 2}}
	ctl.SetBatchResult(hostileOf(batch))
	return cfg, ctl
}

// hostileDemo has every capability, each answering with evil: queue rows,
// queued deltas (an object's resourceVersion, a tombstone's key), a
// listener's backlog, the API server's watch path, verify.
type hostileDemo struct {
	*sourcetest.Demo
	verifyErr bool
}

func (d *hostileDemo) Verify(_ context.Context, informer string) (verify.Result, error) {
	if d.verifyErr {
		return verify.Result{}, errors.New("listing failed: " + evil)
	}
	return verify.Result{ResourceVersion: "9" + evil, Missing: []string{"default/gone" + evil}, MissingCount: 1}, nil
}

// newHostileDemo is hostileConfig with every capability. Its informers and
// listeners keep their plain names: a name that needs escaping is looked up
// by its escaped form and found nowhere, which would leave the caches,
// queues and backlogs this test reads out of sight.
func newHostileDemo(verifyErr bool) *hostileDemo {
	cfg, ctl := hostileConfig()
	for _, frame := range cfg.Frames {
		for i := range frame {
			frame[i].Name = strings.TrimSuffix(frame[i].Name, evil)
			for j := range frame[i].Listeners {
				frame[i].Listeners[j].Name = strings.TrimSuffix(frame[i].Listeners[j].Name, evil)
			}
		}
	}
	stores := map[string]source.StoreReader{}
	for name, sr := range cfg.Stores {
		stores[strings.TrimSuffix(name, evil)] = sr
	}
	cfg.Stores = stores
	pods := "pods"
	cfg.Server = map[string]source.ServerStats{pods: {Available: true, From: "the demo" + evil, WatchCacheResourceVersion: "48000" + evil,
		Path: &source.WatchPath{Watchers: []source.WatcherBuffer{{ID: 1, Client: "pods" + evil, Buffer: source.Buffer{Cap: 10}}}}}}
	ctl.SetQueueRows(pods, []source.QueueItem{{Key: "default/web-1" + evil, Types: []cache.DeltaType{cache.Updated}}, {Key: "default/web-2" + evil, Types: []cache.DeltaType{cache.Deleted}}})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1" + evil, ResourceVersion: "48001" + evil}}
	// Keyed as the dashboard asks: by the key it shows, escaped.
	ctl.SetQueued(pods, safe("default/web-1"+evil), cache.Deltas{{Type: cache.Updated, Object: pod},
		{Type: cache.Deleted, Object: cache.DeletedFinalStateUnknown{Key: "default/web-1" + evil, Obj: pod}}})
	ctl.SetBacklog(pods, "audit", []source.Pending{{Callback: "OnUpdate" + evil, Key: "default/web-1" + evil}})
	return &hostileDemo{Demo: sourcetest.NewDemo(sourcetest.New(cfg), ctl), verifyErr: verifyErr}
}

// unsafeRunes lists what in a rendered frame is neither the dashboard's
// own colouring nor printable text: what the terminal would act on.
func unsafeRunes(frame string) []string {
	var bad []string
	for i, line := range strings.Split(sgr.ReplaceAllString(frame, "") /* the dashboard's own colours */, "\n") {
		for _, r := range line {
			if !strconv.IsPrint(r) {
				bad = append(bad, fmt.Sprintf("line %d: %U in %q", i+1, r, line))
				break
			}
		}
	}
	return bad
}

// Every view, overlay and detail shows what the source sent escaped: no
// control character from the server or an agent reaches the terminal.
func TestViewsEscapeSourceText(t *testing.T) {
	cases := append([]struct {
		name string
		keys []string
	}{}, goldenCases...)
	cases = append(cases,
		struct {
			name string
			keys []string
		}{"store-yaml", []string{"4", "enter"}},
		struct {
			name string
			keys []string
		}{"events-all-detail", []string{"5", "a", "enter"}},
		struct {
			name string
			keys []string
		}{"compare-listeners", []string{"c", "3"}},
	)
	for _, tc := range cases {
		for _, sz := range goldenSizes {
			t.Run(fmt.Sprintf("%s-%dx%d", tc.name, sz[0], sz[1]), func(t *testing.T) {
				h := newHarness(t, hostileSource())
				h.size(sz[0], sz[1])
				h.frames(fixtureFrames)
				h.keys(tc.keys...)
				frame := h.m.View().Content
				if bad := unsafeRunes(frame); len(bad) > 0 {
					t.Fatalf("%d lines carry control characters, first: %s\n%s", len(bad), bad[0], ansi.Strip(frame))
				}
				assertFits(t, ansi.Strip(frame), sz[0], sz[1])
			})
		}
	}
}

// The same with every capability: the queue pager's rows, a key's queued
// deltas, a listener's backlog, the server side of the pipeline and what
// verify says all reach the screen escaped.
func TestCapabilityViewsEscapeSourceText(t *testing.T) {
	for _, tc := range []struct {
		name      string
		keys      []string
		verifyErr bool
	}{
		{"queue-pager", []string{"2"}, false},
		{"queue-detail", []string{"2", "enter"}, false},
		{"listener-backlog", []string{"3", "enter"}, false},
		{"server-side", []string{"e"}, false},
		{"verify-differs", []string{"v"}, false},
		{"verify-error", []string{"v"}, true},
		{"step", []string{"n"}, false},
		{"batch-step", []string{"b"}, false},
		{"rate", []string{"+"}, false},
		{"store", []string{"4"}, false},
		{"store-object", []string{"4", "enter"}, false},
		{"store-index-keys", []string{"4", "i", "enter", "enter"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := newHostileDemo(tc.verifyErr)
			h := newHarness(t, src)
			h.size(160, 48)
			h.frames(fixtureFrames)
			h.keys(tc.keys...)
			h.frames(1)
			frame := h.m.View().Content
			if bad := unsafeRunes(frame); len(bad) > 0 {
				t.Fatalf("%d lines carry control characters, first: %s\n%s", len(bad), bad[0], ansi.Strip(frame))
			}
			if !strings.Contains(ansi.Strip(frame), `\x1b[2J`) {
				t.Fatalf("the source's text is not on screen, escaped:\n%s", ansi.Strip(frame))
			}
			assertFits(t, ansi.Strip(frame), 160, 48)
		})
	}
}

// A control the source refuses with an error it wrote: the step's
// narration and the status line show the error escaped.
func TestControlErrorsEscapeSourceText(t *testing.T) {
	for _, keys := range [][]string{{"n"}, {"w"}} {
		src := newHostileDemo(false)
		src.Controller.SetFailure(errors.New("the server said no" + evil))
		h := newHarness(t, src)
		h.size(160, 48)
		h.frames(fixtureFrames)
		h.keys(keys...)
		frame := h.m.View().Content
		if bad := unsafeRunes(frame); len(bad) > 0 {
			t.Fatalf("after %v, %d lines carry control characters, first: %s", keys, len(bad), bad[0])
		}
		if !strings.Contains(ansi.Strip(frame), `the server said no\x1b[2J`) {
			t.Fatalf("after %v the error is not on screen, escaped:\n%s", keys, ansi.Strip(frame))
		}
	}
}
