package demo

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/engine/instr"
)

// eventRingSize is the shared event ring of all the demo's informers: big
// enough for a few seconds of handler events at the default rates.
const eventRingSize = 16384

// Demo is one demo run: a simulated cluster, its workload, the scenario's
// informers and listeners, and the scenario script. It implements
// tui.Source and tui.Controls.
//
// Locking: mu guards notes, running, startedAt, facts, watchMarks and
// every informer's listener list. It is held while a listener is
// registered or removed (so names stay unique) but never while waiting for
// a handler. The engine never calls back into the demo, so holding mu
// across an informer call cannot deadlock.
type Demo struct {
	cfg     resolved
	sc      *scenario
	plan    plan
	cluster *cluster.Cluster
	work    *driver
	events  *instr.Ring
	infs    []*informerEntry // fixed after New

	stop    chan struct{} // closed when Run's context ends
	stopCtx context.Context
	stopFn  context.CancelFunc
	started atomic.Bool
	syncWG  sync.WaitGroup

	mu        sync.Mutex
	notes     []string
	running   bool
	startedAt time.Time
	facts     facts
	// watchMarks is the state of watchesSettled.
	watchMarks map[string]watchMark

	// stepHook, when set (by tests, before Run), is called before each
	// script step runs; it may block until ctx ends.
	stepHook func(ctx context.Context, name string)
}

// facts are what the script did that its notes and the tests refer to.
type facts struct {
	// deletedWhileDown are the keys the script deleted while the watch was
	// down, in the order deleted (expired scenario).
	deletedWhileDown []string
	// relistsBefore is each informer's relist count when the fault began.
	relistsBefore map[string]uint64
}

type informerEntry struct {
	name      string
	resource  string
	queue     engine.QueueKind
	inf       *engine.Informer
	listeners []*listenerEntry // guarded by Demo.mu, in registration order
}

type listenerEntry struct {
	l       *Listener
	reg     cache.ResourceEventHandlerRegistration
	removed chan struct{}
}

// New builds a demo: it creates and populates the simulated cluster and
// registers the scenario's informers and listeners. Nothing runs until Run.
func New(cfg Config) (*Demo, error) {
	rc, sc, err := resolve(cfg)
	if err != nil {
		return nil, err
	}
	p := sc.build(rc)
	c := cluster.New(cluster.Options{Seed: rc.Seed, WatchList: rc.WatchList})
	for _, pop := range p.populate {
		if err := c.Populate(pop.resource, pop.count); err != nil {
			return nil, fmt.Errorf("demo %s: %w", sc.name, err)
		}
	}
	d := &Demo{
		cfg:     rc,
		sc:      sc,
		plan:    p,
		cluster: c,
		events:  instr.NewRing(eventRingSize),
		stop:    make(chan struct{}),
		notes:   []string{sc.summary},
	}
	d.stopCtx, d.stopFn = context.WithCancel(context.Background())
	for _, ip := range p.informers {
		e, err := d.newInformer(ip)
		if err != nil {
			return nil, fmt.Errorf("demo %s: %w", sc.name, err)
		}
		d.infs = append(d.infs, e)
	}
	d.work = newDriver(cluster.NewWorkload(c, p.workloadOptions(rc)), rc.rate)
	return d, nil
}

// demoIndexers are the indexes every demo cache has, so the Store view's
// index browser has something to show.
func demoIndexers() cache.Indexers {
	return cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		"app": func(obj any) ([]string, error) {
			acc, err := meta.Accessor(obj)
			if err != nil {
				return nil, err
			}
			if app, ok := acc.GetLabels()["app"]; ok {
				return []string{app}, nil
			}
			return nil, nil
		},
	}
}

func (d *Demo) newInformer(ip informerPlan) (*informerEntry, error) {
	lwc, err := d.cluster.ListerWatcher(ip.resource, cluster.Selector{})
	if err != nil {
		return nil, err
	}
	// The cluster's ListerWatcher has both method sets; the engine takes
	// the classic one and finds the context variants itself.
	lw, ok := lwc.(cache.ListerWatcher)
	if !ok {
		return nil, fmt.Errorf("the demo cluster's %s ListerWatcher (%T) lacks List/Watch", ip.resource, lwc)
	}
	example, err := d.cluster.ExampleObject(ip.resource)
	if err != nil {
		return nil, err
	}
	inf := engine.NewSharedIndexInformerWithOptions(lw, example, engine.Options{
		Name:         ip.name,
		Resource:     ip.resource,
		ResyncPeriod: ip.resync,
		Indexers:     demoIndexers(),
		Queue:        ip.queue,
		// The demo runs at teaching rates, where a start and a finish event
		// per handler call is affordable and makes the Events view tell
		// the whole story.
		Instrumentation: engine.Instrumentation{Events: d.events, ItemEvents: true, TapWatchStreams: true},
	})
	e := &informerEntry{name: ip.name, resource: ip.resource, queue: ip.queue, inf: inf}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, lp := range ip.listeners {
		// Handler speeds belong to the scenario's timing, so they scale too.
		lp.delay = d.scaled(lp.delay)
		if _, err := d.registerLocked(e, lp); err != nil {
			return nil, err
		}
	}
	return e, nil
}
