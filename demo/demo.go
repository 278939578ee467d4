package demo

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/source/local"
)

// Demo is one demo run: a simulated cluster, its workload, the scenario's
// informers and listeners (on an embedded local.Source), and the scenario
// script. Beyond what a local source offers it implements source.Faults
// and source.Workload.
//
// Locking: mu guards notes, startedAt, facts and watchMarks. The engine
// never calls back into the demo, so holding mu across an informer call
// cannot deadlock.
type Demo struct {
	*local.Source
	cfg     resolved
	sc      *scenario
	plan    plan
	cluster *cluster.Cluster
	work    *driver
	started atomic.Bool

	mu        sync.Mutex
	notes     []string
	startedAt time.Time
	facts     facts
	// watchMarks is the state of watchesSettled.
	watchMarks map[string]watchMark
	// step is the script step run last, shown the narrations shown so
	// far; scriptEnd closes when the script has run step endAt.
	step      string
	shown     []source.ScriptNote
	endAt     int
	scriptEnd chan struct{}

	// stepHook, when set (by tests, before Run), is called before each
	// script step runs; it may block until ctx ends.
	stepHook func(ctx context.Context, name string)
	// noteHook, when set (by tests, before Run), is called on the script's
	// goroutine right after each step has run and shown its note, so a test
	// can check the state the note claims before anything else moves on.
	noteHook func(name string)
}

var (
	_ source.Source   = (*Demo)(nil)
	_ source.Faults   = (*Demo)(nil)
	_ source.Workload = (*Demo)(nil)
)

// facts are what the script did that its notes and the tests refer to.
type facts struct {
	// deletedWhileDown are the keys the script deleted while the watch was
	// down, in the order deleted (expired scenario).
	deletedWhileDown []string
	// relistsBefore is each informer's relist count when the fault began.
	relistsBefore map[string]uint64
	// faultMark is each informer's other counts when the fault began.
	faultMark map[string]faultMark
	// burstRV is the server's resourceVersion after the last burst.
	burstRV uint64
	// watchesBefore is each informer's count of opened watches when the
	// script last broke them.
	watchesBefore map[string]uint64
	// mutatedKey is the pod the mutating-handler scenario's labeler
	// changes; mutatedRV its resourceVersion when it was changed, and
	// nextRV the server's version after the change that followed.
	mutatedKey, mutatedRV, nextRV string
}

// New builds a demo: it creates and populates the simulated cluster and
// registers the scenario's informers and listeners. Nothing runs until Run.
func New(cfg Config) (*Demo, error) {
	rc, sc, err := resolve(cfg)
	if err != nil {
		return nil, err
	}
	p := sc.build(rc)
	opts := p.server
	opts.Seed, opts.WatchList = rc.Seed, rc.watchList
	c := cluster.New(opts)
	for _, pop := range p.populate {
		if err := c.Populate(pop.resource, pop.count); err != nil {
			return nil, fmt.Errorf("demo %s: %w", sc.name, err)
		}
	}
	d := &Demo{
		cfg:       rc,
		sc:        sc,
		plan:      p,
		cluster:   c,
		notes:     []string{sc.summary},
		shown:     []source.ScriptNote{{Lines: []string{sc.summary}}},
		endAt:     lastLessonStep(p.script),
		scriptEnd: make(chan struct{}),
	}
	if d.endAt < 0 { // no steps: nothing to wait for
		close(d.scriptEnd)
	}
	d.Source = local.New(local.Config{Kind: "demo", Title: "demo · " + rc.Scenario, Notes: d.Notes, Server: d.serverStats})
	for _, ip := range p.informers {
		if err := d.newInformer(ip); err != nil {
			return nil, fmt.Errorf("demo %s: %w", sc.name, err)
		}
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

func (d *Demo) newInformer(ip informerPlan) error {
	lwc, err := d.cluster.ListerWatcher(ip.resource, ip.selector)
	if err != nil {
		return err
	}
	if clw, ok := lwc.(*cluster.ListerWatcher); ok {
		clw.SetClient(ip.name)
		clw.SetBookmarks(!ip.noBookmarks)
	}
	// The cluster's ListerWatcher has both method sets; the engine takes
	// the classic one and finds the context variants itself.
	lw, ok := lwc.(cache.ListerWatcher)
	if !ok {
		return fmt.Errorf("the demo cluster's %s ListerWatcher (%T) lacks List/Watch", ip.resource, lwc)
	}
	example, err := d.cluster.ExampleObject(ip.resource)
	if err != nil {
		return err
	}
	_, err = d.NewInformer(local.InformerSpec{
		Name: ip.name, Resource: ip.resource, Queue: ip.queue, ListerWatcher: lw, Example: example,
		ResyncPeriod: ip.resync, Indexers: demoIndexers(),
		// The demo runs at teaching rates, where a start and a finish event
		// per handler call is affordable and makes the Events view tell
		// the whole story, and where checking every callback for changes
		// to the cached object costs nothing noticeable.
		ItemEvents: true, TapWatchStreams: true, MutationAttribution: true, DescribeMutation: redact.FieldChanges, NoUpkeep: ip.noUpkeep,
	})
	if err != nil {
		return err
	}
	for _, lp := range ip.listeners {
		// Handler speeds belong to the scenario's timing, so they scale too.
		spec := local.ListenerSpec{Name: lp.name, Delay: d.scaled(lp.delay), Resync: lp.resync}
		if _, err := d.AddListener(ip.name, spec); err != nil {
			return err
		}
	}
	return nil
}

// Controls implements source.Source: everything an in-process source can
// do, stepping narrated with the item's way through the simulated API
// server, plus the simulated server's faults and workload.
func (d *Demo) Controls() source.Controls {
	c := d.Source.Controls()
	c.Processing, c.Faults, c.Workload, c.Script = d, d, d, d
	return c
}
