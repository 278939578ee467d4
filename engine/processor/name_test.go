package processor

import (
	"github.com/informtop/informtop/agent/instr"

	"strings"
	"testing"

	"k8s.io/client-go/tools/cache"
)

type namedHandler struct {
	cache.ResourceEventHandlerFuncs
}

func onDelete(any)      {}
func onUpdate(_, _ any) {}

// newFuncs is kept out of line: inlining would rename its closures after the caller.
//
//go:noinline
func newFuncs() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{AddFunc: func(any) {}, DeleteFunc: func(any) {}}
}

// controller is a controller as client-go's sample-controller writes one:
// methods, and closures beside them in its constructor.
type controller struct{}

func (c *controller) enqueue(any) {}

//go:noinline
func newControllerFuncs(c *controller) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{AddFunc: c.enqueue, UpdateFunc: func(_, n any) { c.enqueue(n) }, DeleteFunc: c.enqueue}
}

func TestHandlerNames(t *testing.T) {
	const pkg = "github.com/informtop/informtop/engine/processor"
	mixed := cache.ResourceEventHandlerFuncs{AddFunc: newFuncs().AddFunc, DeleteFunc: onDelete}
	for _, c := range []struct {
		name string
		h    cache.ResourceEventHandler
		want string
	}{
		{"funcs from one constructor", newFuncs(), pkg + ".newFuncs"},
		{"pointer to funcs", &cache.ResourceEventHandlerFuncs{UpdateFunc: onUpdate, DeleteFunc: onDelete}, pkg},
		{"funcs from different places", mixed, pkg + ".newFuncs.func1+" + pkg + ".onDelete"},
		{"a controller's methods and closures", newControllerFuncs(&controller{}), pkg + ".(*controller)"},
		{"one method", cache.ResourceEventHandlerFuncs{AddFunc: (&controller{}).enqueue}, pkg + ".(*controller)"},
		{"struct type", namedHandler{}, pkg + ".namedHandler"},
		{"pointer type", &recorder{}, pkg + ".recorder"},
		{"no funcs", cache.ResourceEventHandlerFuncs{}, "k8s.io/client-go/tools/cache.ResourceEventHandlerFuncs"},
	} {
		if got := instr.HandlerName(c.h); got != c.want {
			t.Errorf("%s: handlerName = %q, want %q", c.name, got, c.want)
		}
	}

	p := New(Options{})
	if got := p.NewListener(ListenerConfig{Name: "explicit", Handler: newFuncs()}).Name(); got != "explicit" {
		t.Errorf("Name() = %q, want the configured name", got)
	}
	if got := p.NewListener(ListenerConfig{Handler: newFuncs()}).Name(); !strings.HasSuffix(got, ".newFuncs") {
		t.Errorf("derived Name() = %q", got)
	}
}
