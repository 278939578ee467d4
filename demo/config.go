package demo

import (
	"fmt"
	"math"
	"strings"

	"github.com/informtop/informtop/agent/source"
)

// Config selects and tunes a demo run. The zero value runs the steady
// scenario with its defaults.
type Config struct {
	// Scenario is one of the names Scenarios returns; "" means "steady".
	Scenario string
	// Seed makes the workload reproducible: same seed, same run.
	Seed int64
	// Queue is the queue kind for scenarios that do not fix it
	// (fifo-compare always runs both).
	Queue source.QueueKind
	// Rate is the background workload in changes per second; 0 means the
	// scenario's default and a negative rate means no background workload
	// (only the script's own changes), which keeps tests exact. At most
	// MaxRate.
	Rate float64
	// List is how informers get their initial list: streamed (WatchList)
	// or LIST pages. The zero value, ListAuto, is client-go v0.37 against
	// kube-apiserver v1.37: streamed, except in a scenario that teaches
	// LIST pages.
	List ListMode
	// TimeScale multiplies every scripted delay and the scenario listeners'
	// time per callback; 0 means 1. Tests use small values. It does not
	// touch client-go's own timers (backoff, resync periods).
	TimeScale float64
	// Objects is the number of objects each informer's resource starts
	// with; 0 means the scenario's default (initial-sync: 50000).
	Objects int
}

// ListMode is how the demo's informers get their initial list.
type ListMode int

const (
	// ListAuto streams the initial list, as client-go v0.37 does against
	// kube-apiserver v1.37 (WatchListClient and WatchList both on by
	// default), unless the scenario teaches LIST pages.
	ListAuto ListMode = iota
	// ListStream makes the simulated server stream initial lists
	// (sendInitialEvents: ADDED events, then a bookmark).
	ListStream
	// ListPages makes it refuse streamed lists, as a server without the
	// WatchList feature does, so reflectors LIST in pages.
	ListPages
)

// resolved is Config with every default filled in.
type resolved struct {
	Config
	rate float64 // the background rate actually used; 0 when Rate < 0
	// watchList: the server streams initial lists (sendInitialEvents).
	watchList bool
}

// resolve validates cfg and applies the scenario's defaults.
func resolve(cfg Config) (resolved, *scenario, error) {
	name := cfg.Scenario
	if name == "" {
		name = defaultScenario
	}
	sc := lookupScenario(name)
	if sc == nil {
		return resolved{}, nil, fmt.Errorf("unknown demo scenario %q; valid scenarios: %s", cfg.Scenario, strings.Join(scenarioNames(), ", "))
	}
	cfg.Scenario = name
	switch {
	case math.IsNaN(cfg.TimeScale) || math.IsInf(cfg.TimeScale, 0) || cfg.TimeScale < 0:
		return resolved{}, nil, fmt.Errorf("demo time scale must be a positive number, got %v", cfg.TimeScale)
	case math.IsNaN(cfg.Rate) || math.IsInf(cfg.Rate, 0):
		return resolved{}, nil, fmt.Errorf("demo workload rate must be a number, got %v", cfg.Rate)
	case cfg.Rate > MaxRate:
		return resolved{}, nil, fmt.Errorf("demo workload rate %g is above the demo's maximum of %d changes per second", cfg.Rate, MaxRate)
	case cfg.Objects < 0:
		return resolved{}, nil, fmt.Errorf("demo object count must not be negative, got %d", cfg.Objects)
	case cfg.List < ListAuto || cfg.List > ListPages:
		return resolved{}, nil, fmt.Errorf("unknown initial list mode %d", int(cfg.List))
	case !cfg.Queue.Valid():
		return resolved{}, nil, fmt.Errorf("unknown queue kind %d", int(cfg.Queue))
	}
	if cfg.TimeScale == 0 {
		cfg.TimeScale = 1
	}
	if cfg.Objects == 0 {
		cfg.Objects = sc.objects
	}
	r := resolved{Config: cfg, watchList: cfg.List == ListStream || cfg.List == ListAuto && !sc.pagedList}
	switch {
	case cfg.Rate > 0:
		r.rate = cfg.Rate
	case cfg.Rate == 0:
		r.rate = sc.rate
	}
	return r, sc, nil
}
