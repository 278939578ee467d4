package engine

import (
	"github.com/informtop/informtop/agent/instr"

	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine/processor"
)

// minimumResyncPeriod is client-go's floor for a handler's resync period.
const minimumResyncPeriod = time.Second

// AddEventHandler registers handler with the informer's default resync period.
func (inf *Informer) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return inf.AddEventHandlerWithOptions(handler, cache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod registers handler with its own resync period.
func (inf *Informer) AddEventHandlerWithResyncPeriod(handler cache.ResourceEventHandler, resyncPeriod time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return inf.AddEventHandlerWithOptions(handler, cache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions registers handler; the listener is named as
// client-go names it (see nameForHandler), with " #2", " #3", … appended
// when a registered listener already has that name.
func (inf *Informer) AddEventHandlerWithOptions(handler cache.ResourceEventHandler, options cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return inf.AddNamedEventHandler("", handler, options)
}

// AddNamedEventHandler registers handler under a name shown in the UI; ""
// derives one as AddEventHandlerWithOptions does, an explicit name is kept
// as given even when another listener has it. A handler added after the
// informer started first receives OnAdd(obj, true) for every cached object,
// before any later notification.
func (inf *Informer) AddNamedEventHandler(name string, handler cache.ResourceEventHandler, options cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, errors.New("handler was not added to informer " + inf.name + ": it is nil; pass a cache.ResourceEventHandler")
	}
	inf.startedMu.Lock()
	defer inf.startedMu.Unlock()
	if inf.stopped {
		return nil, errors.New("handler was not added: informer " + inf.name + " has stopped")
	}
	if name == "" {
		// Under startedMu, which RemoveEventHandler also holds, so two
		// concurrent registrations cannot pick the same free name.
		name = inf.freeListenerName(nameForHandler(handler))
	}

	requested := inf.defaultHandlerResync
	if options.ResyncPeriod != nil {
		requested = *options.ResyncPeriod
	}
	resync := requested
	if resync > 0 {
		if resync < minimumResyncPeriod {
			resync = minimumResyncPeriod
		}
		if resync < inf.resyncCheckPeriod {
			if inf.started {
				// Too late to make the reflector check more often.
				resync = inf.resyncCheckPeriod
			} else {
				inf.resyncCheckPeriod = resync
				inf.processor.ResyncCheckPeriodChanged(resync)
			}
		}
	}

	l := inf.processor.NewListener(processor.ListenerConfig{
		Name:            name,
		Handler:         handler,
		RequestedResync: resync,
		Resync:          instr.EffectiveResync(resync, inf.resyncCheckPeriod),
		UpstreamSynced:  inf.HasSyncedChecker(),
	})
	if !inf.started {
		inf.processor.AddListener(l, nil)
		return l, nil
	}

	// Joining a running informer: hold deltas back while the listener is
	// handed the cache, so it neither misses nor repeats a notification.
	inf.blockDeltas.Lock()
	defer inf.blockDeltas.Unlock()
	inf.processor.AddListener(l, inf.indexer.List())
	return l, nil
}

// RemoveEventHandler unregisters a handler and drops its backlog. Removing
// the same registration twice is not an error.
func (inf *Informer) RemoveEventHandler(handle cache.ResourceEventHandlerRegistration) error {
	inf.startedMu.Lock()
	defer inf.startedMu.Unlock()
	inf.blockDeltas.Lock()
	defer inf.blockDeltas.Unlock()
	return inf.processor.RemoveListener(handle)
}

// freeListenerName is base if no registered listener is called that, else
// the first of "base #2", "base #3", … that is free. client-go does not do
// this: its listeners may share a name (in logs and sync-tracker names).
func (inf *Informer) freeListenerName(base string) string {
	taken := make(map[string]bool)
	for _, l := range inf.processor.Listeners() {
		taken[l.Name()] = true
	}
	name := base
	for n := 2; taken[name]; n++ {
		name = base + " #" + strconv.Itoa(n)
	}
	return name
}

// nameForHandler names a handler exactly as client-go v0.37's
// tools/cache.nameForHandler does for its listeners' logs and sync trackers:
//   - ResourceEventHandlerFuncs (or a pointer to it): the common qualifier of
//     its non-nil funcs' runtime names, i.e. the name without its last
//     element: "main.(*Controller)" for method values c.addDeployment,
//     c.updateDeployment, …; "main.NewController" for closures declared in
//     that function; the package path for top-level funcs. Funcs from
//     different places are listed in full, joined by "+" (method values keep
//     their "-fm" suffix there).
//   - any other handler: the package-qualified name of its type, a pointer
//     dereferenced ("k8s.io/client-go/tools/cache.FilteringResourceEventHandler"
//     for a filter, whatever it wraps).
//   - when that yields nothing (no funcs set, a nil pointer, an unnamed
//     type): fmt's %T, e.g. "cache.ResourceEventHandlerFuncs".
func nameForHandler(handler cache.ResourceEventHandler) (name string) {
	defer func() {
		if name == "" {
			name = fmt.Sprintf("%T", handler)
		}
	}()
	switch h := handler.(type) {
	case nil:
		return ""
	case *cache.ResourceEventHandlerFuncs:
		return nameForFunctions(h.AddFunc, h.UpdateFunc, h.DeleteFunc)
	case cache.ResourceEventHandlerFuncs:
		return nameForFunctions(h.AddFunc, h.UpdateFunc, h.DeleteFunc)
	}
	t := reflect.TypeOf(handler)
	if v := reflect.ValueOf(handler); t.Kind() == reflect.Pointer && !v.IsNil() {
		t = t.Elem()
	}
	name = t.PkgPath()
	if name != "" {
		name += "."
	}
	return name + t.Name()
}

// nameForFunctions is client-go's: the qualifier all of fs share, or their
// full names joined by "+"; nil funcs are skipped, and "" when all are nil.
func nameForFunctions(fs ...any) string {
	var qualifier string
	single := true
	var names []string
	for _, f := range fs {
		if reflect.ValueOf(f).IsNil() {
			continue
		}
		fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer())
		if fn == nil || fn.Name() == "" {
			continue
		}
		n := fn.Name()
		names = append(names, n)
		q := n
		if i := strings.LastIndexByte(q, '.'); i > 0 {
			q = q[:i]
		}
		switch qualifier {
		case "":
			qualifier = q
		case q:
		default:
			single = false
		}
	}
	if single {
		return qualifier
	}
	return strings.Join(names, "+")
}
