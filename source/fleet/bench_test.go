package fleet

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A fleet of 100 controllers × 20 informers × 3 listeners, the issue's
// figure: one refresh (21 queries) through Prometheus' HTTP API shapes,
// parsed into the model and ranked. go test -bench Refresh ./source/fleet/
func BenchmarkRefreshFleet100x20x3(b *testing.B) {
	p := &fakeProm{bodies: map[string][]byte{}}
	for c := range 100 {
		tg := scrape{"job": "controllers", "instance": fmt.Sprintf("10.0.%d.%d:6060", c/250, c%250), "namespace": "shop", "pod": fmt.Sprintf("ctl-%03d", c)}
		p.scrapes(tg, 1)
		for i := range 20 {
			inf := fmt.Sprintf("resource-%02d", i)
			p.informer(tg, inf, map[string]float64{"informtop_informer_synced": 1, "informtop_informer_store_objects": 500})
			for l := range 3 {
				p.listener(tg, inf, fmt.Sprintf("handler-%d", l), map[string]float64{"informtop_listener_synced": 1, "informtop_listener_pending_notifications": float64(l)})
			}
		}
	}
	url := serveB(b, p)
	s, err := New(Options{URL: url})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s.refresh(ctx) // the fake encodes its answers once
	b.ReportAllocs()
	for b.Loop() {
		if wait := s.refresh(ctx); wait != s.opts.Refresh {
			b.Fatalf("the refresh failed: %+v", s.Pull(0, 0).Status)
		}
	}
	f := s.Pull(0, 0)
	if len(f.Processes) != 100 || len(f.Snapshots) != 2000 {
		b.Fatalf("%d processes, %d informers", len(f.Processes), len(f.Snapshots))
	}
	b.ReportMetric(float64(time.Duration(b.Elapsed().Nanoseconds()/int64(b.N)))/1e6, "ms/refresh")
}
