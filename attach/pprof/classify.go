package pprof

import (
	"slices"
	"strconv"
	"strings"

	"github.com/informtop/informtop/agent/source"
)

// The client-go functions a listener's goroutines run. Matched as
// prefixes, so the closures inside them (run.func1) count too.
const (
	cachePkg      = "k8s.io/client-go/tools/cache."
	listenerRun   = cachePkg + "(*processorListener).run"
	processorRun  = cachePkg + "(*sharedProcessor).run"
	informerRunFn = cachePkg + "(*sharedIndexInformer).Run"
)

// libraryPrefixes are the packages whose frames are not the user's: a
// stuck handler is named by the first frame outside them. The Go
// runtime and standard library are recognised by their paths' lack of
// a dot (libraryFrame).
var libraryPrefixes = []string{
	"k8s.io/client-go/",
	"k8s.io/apimachinery/",
	"k8s.io/utils/",
	"k8s.io/klog/",
	"sigs.k8s.io/controller-runtime/",
	// informtop's agent and engine wrap a handler when the process has
	// the agent; the rest of the module (its examples, its tests) is a
	// user's code like any other.
	"github.com/informtop/informtop/agent",
	"github.com/informtop/informtop/engine",
}

// libraryFrame reports whether fn belongs to the Go runtime or standard
// library, or to a library in libraryPrefixes.
func libraryFrame(fn string) bool {
	for _, p := range libraryPrefixes {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	pkg := packageOf(fn)
	first, _, _ := strings.Cut(pkg, "/")
	// The standard library's import paths have no dot in their first
	// element; "main" is the one such package that is the user's.
	return !strings.Contains(first, ".") && pkg != "main"
}

// packageOf is the import path of fn: up to the first dot after the last
// slash ("k8s.io/client-go/tools/cache" of "k8s.io/client-go/tools/cache.(*T).m").
func packageOf(fn string) string {
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 {
		return fn
	}
	return fn[:slash+1+dot]
}

// listenerSeen is one listener goroutine of one dump.
type listenerSeen struct {
	// ID is the processorListener's address (run's receiver), stable for
	// the listener's life; the goroutine's ID when the dump elides it.
	ID        string
	Goroutine uint64
	// Processor is the goroutine that started it: its informer's
	// sharedProcessor.run.
	Processor uint64
	// Callback is source.CallbackAdd, Update or Delete while the handler
	// runs, "" while it waits for a notification.
	Callback string
	// Handler is client-go's name for the handler (see handlerName); ""
	// while idle, as nothing in an idle goroutine names it.
	Handler string
	// Entry is the handler's method (or the function of a
	// ResourceEventHandlerFuncs) the call went into; User the first frame
	// outside the libraries, the code to read.
	Entry, User Frame
	// Minutes is the runtime's "N minutes" for the goroutine: how long it
	// has been blocked where it is, in whole minutes, 0 below one.
	Minutes int
}

// findListeners picks the listener goroutines out of a dump.
func findListeners(gs []Goroutine) []listenerSeen {
	var out []listenerSeen
	for _, g := range gs {
		run := slices.IndexFunc(g.Frames, func(f Frame) bool { return f.Function == listenerRun })
		if run < 0 {
			continue
		}
		l := listenerSeen{ID: firstArg(g.Frames[run].Args), Goroutine: g.ID, Processor: g.CreatedIn, Minutes: int(g.Waiting.Minutes())}
		if l.ID == "" || l.ID == "..." {
			l.ID = "goroutine " + strconv.FormatUint(g.ID, 10)
		}
		// The innermost frame of run (run itself, or its closure) calls
		// the handler; the frame inside it is the handler's method.
		inner := run
		for inner > 0 && strings.HasPrefix(g.Frames[inner-1].Function, listenerRun) {
			inner--
		}
		if inner > 0 {
			entry := g.Frames[inner-1]
			if cb := callbackOf(entry.Function); cb != "" {
				l.Callback = cb
				l.Handler, l.Entry = handlerName(g.Frames[:inner])
				l.User = userFrame(g.Frames[:inner])
			}
		}
		out = append(out, l)
	}
	return out
}

// callbackOf is the callback a handler method runs, from its name:
// OnAdd, OnUpdate or OnDelete; "" for anything else (the runtime's
// channel receive while the listener waits).
func callbackOf(fn string) string {
	m := fn[strings.LastIndexByte(fn, '.')+1:]
	for _, cb := range []string{source.CallbackAdd, source.CallbackUpdate, source.CallbackDelete} {
		if strings.HasPrefix(m, cb) {
			return cb
		}
	}
	return ""
}

// handlerName names the handler as client-go's nameForHandler does, from
// the frames inside the listener's run (innermost first; the last is the
// handler's method): a type's package path and name
// ("main.podHandler"), or for ResourceEventHandlerFuncs the qualifier of
// its function ("main.main" for main.main.func1). It returns the frame
// naming it too: the method, or the function of the Funcs.
func handlerName(frames []Frame) (string, Frame) {
	entry := frames[len(frames)-1]
	recv := receiverOf(entry.Function)
	if strings.HasPrefix(recv, cachePkg) && strings.HasSuffix(recv, "HandlerFuncs") && len(frames) > 1 {
		fn := frames[len(frames)-2]
		name := fn.Function
		if i := strings.LastIndexByte(name, '.'); i > len(packageOf(name)) {
			name = name[:i]
		}
		return name, fn
	}
	if recv == "" {
		return entry.Function, entry
	}
	return recv, entry
}

// receiverOf is the type of a method's receiver, without pointer:
// "main.podHandler" of "main.(*podHandler).OnUpdate"; "" for a plain
// function.
func receiverOf(fn string) string {
	pkg := packageOf(fn)
	rest := strings.TrimPrefix(fn, pkg+".")
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return ""
	}
	t := rest[:i]
	if strings.HasPrefix(t, "(*") && strings.HasSuffix(t, ")") {
		t = t[2 : len(t)-1]
	}
	if strings.Contains(strings.ReplaceAll(t, "[...]", ""), ".") {
		return "" // a closure's name, not a method's
	}
	return pkg + "." + t
}

// userFrame is the innermost frame outside the runtime, the standard
// library and the libraries a controller is built on; the handler's
// entry when every frame is theirs.
func userFrame(frames []Frame) Frame {
	for _, f := range frames {
		if !libraryFrame(f.Function) {
			return f
		}
	}
	return frames[len(frames)-1]
}

// firstArg is the first word of a call's arguments: the receiver of a
// method.
func firstArg(args string) string {
	a, _, _ := strings.Cut(args, ",")
	return strings.TrimSuffix(strings.TrimSpace(a), "?")
}

// processors maps each sharedProcessor goroutine to the goroutine
// running its informer (the one that started it).
func processors(gs []Goroutine) map[uint64]uint64 {
	out := map[uint64]uint64{}
	for _, g := range gs {
		if slices.ContainsFunc(g.Frames, func(f Frame) bool { return f.Function == processorRun }) {
			out[g.ID] = g.CreatedIn
		}
	}
	return out
}
