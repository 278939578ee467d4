package pprof

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// The fixtures are dumps of test/pprofdumps/controller.go, one per
// client-go version informtop supports (testdata/README.md): one informer
// with three handlers, two of them stuck in OnUpdate on a labelled pod.
// A client-go release that renames or moves the frames the parser reads
// fails here.
func TestFixturesNameTheStuckHandlers(t *testing.T) {
	paths, err := filepath.Glob("testdata/client-go-*.txt")
	if err != nil || len(paths) < 3 {
		t.Fatalf("want the v0.35, v0.36 and v0.37 fixtures, have %v (%v)", paths, err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txt"), func(t *testing.T) {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			gs, err := ParseDump(f)
			if err != nil {
				t.Fatal(err)
			}
			tr := newTracker()
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			infs, events := tr.update(gs, t0)
			if len(infs) != 1 {
				t.Fatalf("want one informer, got %d: %+v", len(infs), infs)
			}
			inf := infs[0]
			if inf.Name != "main.main, main.podHandler" || inf.Implementation != source.ImplementationPprof {
				t.Errorf("informer named %q (%s), want the handlers it delivers to: \"main.main, main.podHandler\"", inf.Name, inf.Implementation)
			}
			if len(inf.Listeners) != 3 {
				t.Fatalf("want three listeners, got %+v", inf.Listeners)
			}
			byName := map[string]source.Listener{}
			for _, l := range inf.Listeners {
				byName[l.Name] = l
			}
			for _, name := range []string{"main.main", "main.podHandler"} {
				l, ok := byName[name]
				if !ok {
					t.Fatalf("no listener %q among %+v", name, inf.Listeners)
				}
				if l.InCallback != source.CallbackUpdate || l.Frame == nil {
					t.Fatalf("%s: want in OnUpdate with a frame, got %q %v", name, l.InCallback, l.Frame)
				}
				if got := l.Frame.String(); got != "main.waitForRelease (main.go:59)" {
					t.Errorf("%s: stuck in %s, want main.waitForRelease (main.go:59)", name, got)
				}
			}
			idle := 0
			for _, l := range inf.Listeners {
				if l.InCallback == "" {
					idle++
					if !strings.HasPrefix(l.Name, "listener in goroutine ") {
						t.Errorf("an idle listener never seen in a call is named %q, want its goroutine", l.Name)
					}
				}
			}
			if idle != 1 {
				t.Errorf("want one idle listener, got %d", idle)
			}
			if len(events) != 0 {
				t.Errorf("one dump cannot say a call stalled, got %+v", events)
			}

			// The same dump 6 s later: both calls have lasted at least 6 s.
			infs, events = tr.update(gs, t0.Add(6*time.Second))
			for _, l := range infs[0].Listeners {
				if l.InCallback != "" && !l.InCallbackSince.Equal(t0) {
					t.Errorf("%s: in the call since %v, want the first dump's %v", l.Name, l.InCallbackSince, t0)
				}
			}
			if len(events) != 2 || events[0].Type != source.EventStalled || events[0].Duration != 6*time.Second {
				t.Errorf("want two Stalled events of 6 s, got %+v", events)
			}
			// A dump without them: both Recovered, having lasted ≥ 6 s.
			var none []Goroutine
			for _, g := range gs {
				if !strings.Contains(g.Frames[0].Function, "waitForRelease") {
					none = append(none, g)
				}
			}
			_, events = tr.update(none, t0.Add(9*time.Second))
			if len(events) != 2 || events[0].Type != source.EventRecovered || events[0].Duration != 6*time.Second {
				t.Errorf("want two Recovered events of 6 s, got %+v", events)
			}
		})
	}
}

func TestParseDumpReadsTheRuntimesMinutes(t *testing.T) {
	dump := `goroutine 7 gp=0xc000007c00 m=nil [chan receive, 12 minutes, locked to thread]:
example.com/ctl.(*Reconciler).sync(0xc000100000, {0x1, 0x2})
	/src/ctl/sync.go:41 +0x1d
k8s.io/client-go/tools/cache.(*processorListener).run(0xc0001)
	/go/pkg/mod/k8s.io/client-go@v0.37.1/tools/cache/shared_informer.go:1519 +0x6c
...additional frames elided...
created by k8s.io/apimachinery/pkg/util/wait.(*Group).Start in goroutine 3
	/go/pkg/mod/k8s.io/apimachinery@v0.37.1/pkg/util/wait/wait.go:70 +0x73

goroutine 8 [running]:
	goroutine running on other thread; stack unavailable
`
	gs, err := ParseDump(strings.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 {
		t.Fatalf("want 2 goroutines, got %+v", gs)
	}
	g := gs[0]
	if g.ID != 7 || g.State != "chan receive" || g.Waiting != 12*time.Minute || g.CreatedIn != 3 || len(g.Frames) != 2 {
		t.Errorf("got %+v", g)
	}
	if f := g.Frames[0]; f.Function != "example.com/ctl.(*Reconciler).sync" || f.File != "/src/ctl/sync.go" || f.Line != 41 {
		t.Errorf("frame %+v", f)
	}
	if _, err := ParseDump(strings.NewReader("<html>404 page not found</html>")); err == nil {
		t.Error("a page that is no dump parsed")
	}
}

func TestHandlerNamesAsClientGoNamesThem(t *testing.T) {
	for _, c := range []struct {
		frames []string // innermost first, the handler's entry last
		want   string
		user   string
	}{
		{[]string{"sync.(*Mutex).Lock", "k8s.io/kubernetes/pkg/controller/deployment.(*DeploymentController).updateDeployment",
			"k8s.io/kubernetes/pkg/controller/deployment.NewDeploymentController.func2", "k8s.io/client-go/tools/cache.ResourceEventHandlerFuncs.OnUpdate"},
			"k8s.io/kubernetes/pkg/controller/deployment.NewDeploymentController",
			"k8s.io/kubernetes/pkg/controller/deployment.(*DeploymentController).updateDeployment"},
		{[]string{"example.com/op/internal/ctl.(*handler).OnAdd"}, "example.com/op/internal/ctl.handler", "example.com/op/internal/ctl.(*handler).OnAdd"},
		{[]string{"time.Sleep", "example.com/op.(*R).Map", "sigs.k8s.io/controller-runtime/pkg/handler.(*enqueueRequestsFromMapFunc).Create",
			"sigs.k8s.io/controller-runtime/pkg/internal/source.(*EventHandler[...]).OnAdd"},
			"sigs.k8s.io/controller-runtime/pkg/internal/source.EventHandler[...]", "example.com/op.(*R).Map"},
	} {
		var fs []Frame
		for _, f := range c.frames {
			fs = append(fs, Frame{Function: f})
		}
		if got, _ := handlerName(fs); got != c.want {
			t.Errorf("%v: named %q, want %q", c.frames, got, c.want)
		}
		if got := userFrame(fs).Function; got != c.user {
			t.Errorf("%v: user frame %q, want %q", c.frames, got, c.user)
		}
	}
}
