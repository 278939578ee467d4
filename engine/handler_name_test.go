package engine

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// podController is the classic controller shape: its handler funcs are
// method values (c.addPod, …), as in NewDeploymentController.
type podController struct{}

func (*podController) addPod(any)         {}
func (*podController) updatePod(_, _ any) {}
func (*podController) deletePod(any)      {}

func onPodAdd(any)              {}
func onPodDelete(any)           {}
func acceptEverything(any) bool { return true }

// valueHandler implements the interface with value receivers.
type valueHandler struct{}

func (valueHandler) OnAdd(any, bool)   {}
func (valueHandler) OnUpdate(_, _ any) {}
func (valueHandler) OnDelete(any)      {}

// clientGoListenerName is the handler's name in a client-go registration's
// sync-tracker name, "SharedIndexInformer *v1.Pod + event handler NAME".
func clientGoListenerName(s string) string {
	_, name, _ := strings.Cut(s, " + event handler ")
	return name
}

// Handlers added without a name are named as client-go v0.37 names them
// (tools/cache.nameForHandler), so the listener a user sees carries the name
// their own code has in client-go's logs and sync-tracker names.
func TestUnnamedHandlersAreNamedLikeClientGo(t *testing.T) {
	const pkg = "github.com/informtop/informtop/engine"
	c := &podController{}
	methods := cache.ResourceEventHandlerFuncs{AddFunc: c.addPod, UpdateFunc: c.updatePod, DeleteFunc: c.deletePod}
	cases := []struct {
		what    string
		handler cache.ResourceEventHandler
		want    string
	}{
		{"funcs that are method values", methods, pkg + ".(*podController)"},
		{"one method value", cache.ResourceEventHandlerFuncs{AddFunc: c.addPod}, pkg + ".(*podController)"},
		{"pointer to funcs", &methods, pkg + ".(*podController)"},
		{"a plain func", cache.ResourceEventHandlerFuncs{AddFunc: onPodAdd}, pkg},
		{"closures", cache.ResourceEventHandlerFuncs{AddFunc: func(any) {}, DeleteFunc: func(any) {}}, pkg + ".TestUnnamedHandlersAreNamedLikeClientGo"},
		{"funcs from different places", cache.ResourceEventHandlerFuncs{AddFunc: c.addPod, DeleteFunc: onPodDelete},
			pkg + ".(*podController).addPod-fm+" + pkg + ".onPodDelete"},
		{"a filter wrapping funcs", cache.FilteringResourceEventHandler{FilterFunc: acceptEverything, Handler: methods},
			"k8s.io/client-go/tools/cache.FilteringResourceEventHandler"},
		{"a struct handler", &recorder{}, pkg + ".recorder"},
		{"a struct handler by value", valueHandler{}, pkg + ".valueHandler"},
		{"funcs without funcs", cache.ResourceEventHandlerFuncs{}, "cache.ResourceEventHandlerFuncs"},
		{"a nil pointer", (*recorder)(nil), "*engine.recorder"},
	}

	inf := newTestInformer(newTestSource(t), RealFIFO, 0)
	reference := cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.Pod{}, 0, cache.Indexers{})
	for i, tc := range cases {
		// Every way of adding a handler without a name derives it.
		var err error
		switch i % 3 {
		case 0:
			_, err = inf.AddEventHandler(tc.handler)
		case 1:
			_, err = inf.AddEventHandlerWithResyncPeriod(tc.handler, time.Minute)
		case 2:
			_, err = inf.AddEventHandlerWithOptions(tc.handler, cache.HandlerOptions{})
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		reg, err := reference.AddEventHandler(tc.handler)
		if err != nil {
			t.Fatalf("%s: client-go: %v", tc.what, err)
		}
		if got := clientGoListenerName(reg.HasSyncedChecker().Name()); got != tc.want {
			t.Errorf("%s: client-go names it %q, the test expects %q", tc.what, got, tc.want)
		}
	}

	// The first three would collide: they get " #2", " #3" (client-go
	// leaves such names equal).
	want := make([]string, len(cases))
	for i, tc := range cases {
		want[i] = tc.want
	}
	want[1], want[2] = want[0]+" #2", want[0]+" #3"
	assertListenerNames(t, inf, want...)
}

func TestExplicitAndDuplicateHandlerNames(t *testing.T) {
	const base = "github.com/informtop/informtop/engine.(*podController)"
	c := &podController{}
	funcs := cache.ResourceEventHandlerFuncs{AddFunc: c.addPod, UpdateFunc: c.updatePod, DeleteFunc: c.deletePod}
	src := newTestSource(t)
	src.Add(pod("a"))
	inf := newTestInformer(src, RealFIFO, 0)

	if _, err := inf.AddNamedEventHandler(base, &recorder{}, cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddNamedEventHandler("mine", funcs, cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	second, err := inf.AddEventHandler(funcs)
	if err != nil {
		t.Fatal(err)
	}
	// An explicit name is kept even when taken.
	if _, err := inf.AddNamedEventHandler("mine", &recorder{}, cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	assertListenerNames(t, inf, base, "mine", base+" #2", "mine")

	// A derived name is unique among the registered listeners, also for a
	// handler joining a running informer; a removed listener's name is free.
	runInformer(t, inf)
	waitfor.True(t, "sync", inf.HasSynced)
	if _, err := inf.AddEventHandler(funcs); err != nil {
		t.Fatal(err)
	}
	if err := inf.RemoveEventHandler(second); err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddEventHandler(funcs); err != nil {
		t.Fatal(err)
	}
	assertListenerNames(t, inf, base, "mine", "mine", base+" #3", base+" #2")
}

func assertListenerNames(t *testing.T, inf *Informer, want ...string) {
	t.Helper()
	var got []string
	for _, l := range inf.Snapshot().Listeners {
		got = append(got, l.Name)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("listener names:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
