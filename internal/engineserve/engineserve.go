// Package engineserve serves informtop's engine informers over the
// agent's HTTP API (package agent/serve), as the agent serves client-go's:
// for informtop's own tests and tools, which attach to engine informers
// whose whole pipeline (queue rows, steps, cuts for --verify) is in view.
// Controllers link package agent, which serves client-go's informers on
// the client-go versions they run.
package engineserve

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/source/local"
)

// NewHandler serves informers (each a distinct name) with opts. Their
// mutation reports leave through the handler, so their fields are listed
// with secret values hidden.
func NewHandler(opts serve.Options, informers ...*engine.Informer) (http.Handler, error) {
	src, err := newView(opts.ProcessName(), informers)
	if err != nil {
		return nil, err
	}
	return serve.NewHandler(src, opts, serve.Extras{Identity: src.identity, CutState: src.cutState})
}

// Serve is serve.Serve of NewHandler's handler.
func Serve(ctx context.Context, addr string, opts serve.Options, informers ...*engine.Informer) error {
	return serve.Serve(ctx, addr, opts, func(o serve.Options) (http.Handler, error) { return NewHandler(o, informers...) })
}

// view is a source of engine informers that run elsewhere: Run only
// waits, and its one control is Cuts. Its fields are fixed once built; the
// merger locks itself.
type view struct {
	title     string
	informers []*engine.Informer
	byName    map[string]*engine.Informer
	// single is the one ring every informer logs to, nil when they log to
	// rings of their own, which merger merges on each pull.
	single *instr.Ring
	merger *instr.Merger // safe for concurrent use
}

var (
	_ source.Source = (*view)(nil)
	_ source.Cutter = (*view)(nil)
)

func newView(title string, informers []*engine.Informer) (*view, error) {
	v := &view{title: title, informers: informers, byName: make(map[string]*engine.Informer, len(informers))}
	var rings []*instr.Ring
	for i, inf := range informers {
		if inf == nil {
			return nil, fmt.Errorf("engineserve: informer %d of %d is nil", i+1, len(informers))
		}
		if v.byName[inf.Name()] != nil {
			return nil, fmt.Errorf("engineserve: two informers are named %q; give each a distinct engine.Options.Name", inf.Name())
		}
		v.byName[inf.Name()] = inf
		inf.DescribeMutationsWith(redact.FieldChanges)
		if r := inf.Events(); r != nil && !slices.Contains(rings, r) {
			rings = append(rings, r)
		}
	}
	switch len(rings) {
	case 0:
		v.single = instr.NewRing(1)
	case 1:
		v.single = rings[0]
	default:
		v.merger = instr.NewMerger(instr.DefaultRingSize * len(rings))
		for _, r := range rings {
			v.merger.Add(r)
		}
	}
	return v, nil
}

func (v *view) Kind() string  { return "agent" }
func (v *view) Title() string { return v.title }

// Pull implements source.Source.
func (v *view) Pull(cursor uint64, maxEvents int) source.Frame {
	f := source.Frame{Taken: time.Now(), Status: source.Status{State: source.Live}}
	f.Snapshots = make([]source.Informer, len(v.informers))
	for i, inf := range v.informers {
		f.Snapshots[i] = local.InformerOf(inf.Snapshot())
	}
	var evs []instr.Event
	if v.single != nil {
		evs, f.Next, f.Missed = v.single.Since(cursor, maxEvents)
		f.EventStats = source.RingStatsOf(v.single.Stats())
	} else {
		evs, f.Next, f.Missed = v.merger.Since(cursor, maxEvents)
		f.EventStats = source.RingStatsOf(v.merger.Stats())
	}
	out := evs[:0]
	for _, e := range evs {
		if e.Informer == "" || v.byName[e.Informer] != nil {
			out = append(out, e) // a shared ring may carry other informers'
		}
	}
	f.Events = source.EventsOf(out)
	return f
}

// Store implements source.Source.
func (v *view) Store(name string) source.StoreReader {
	if inf := v.byName[name]; inf != nil {
		return local.InformerStore(inf)
	}
	return nil
}

// Cut implements source.Cutter with the engine's cut.
func (v *view) Cut(_ context.Context, name string) (verify.Cut, error) {
	inf := v.byName[name]
	if inf == nil {
		return verify.Cut{}, source.NoInformer(name)
	}
	return local.CutInformer(inf)
}

func (v *view) Run(ctx context.Context) { <-ctx.Done() }

// WaitSynced implements source.Source.
func (v *view) WaitSynced(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		synced := true
		for _, inf := range v.informers {
			synced = synced && inf.HasSynced()
		}
		if synced {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (v *view) Controls() source.Controls { return source.Controls{Cuts: v} }

// identity is the client-go identity the informer was built with.
func (v *view) identity(name string) schema.GroupVersionResource {
	if inf := v.byName[name]; inf != nil {
		return inf.Identifier().GroupVersionResource()
	}
	return schema.GroupVersionResource{}
}

// cutState adds the resourceVersion the informer last received to its
// cache's generation: a cut also holds what is queued.
func (v *view) cutState(name string) string {
	inf := v.byName[name]
	if inf == nil {
		return ""
	}
	return strconv.FormatUint(inf.StoreView().Generation(), 10) + "@" + inf.LastSyncResourceVersion()
}
