package fleet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// The fleet as Prometheus' series tell it: each target a process, its
// informers named after it, a target Prometheus cannot scrape first, the
// stalled one next with its listener's stall, backlog and frame, the
// healthy one last.
func TestFleetMapsSeriesToProcessesWorstFirst(t *testing.T) {
	p := &fakeProm{}
	stuck := scrape{"job": "controllers", "instance": "10.0.0.1:6060", "namespace": "shop", "pod": "widgets-7d9f"}
	fine := scrape{"job": "controllers", "instance": "10.0.0.2:6060", "namespace": "shop", "pod": "gadgets-5c2a"}
	gone := scrape{"job": "controllers", "instance": "10.0.0.3:6060"}
	p.scrapes(stuck, 1)
	p.scrapes(fine, 1)
	p.scrapes(gone, 0)
	informer := map[string]float64{"informtop_informer_synced": 1, "informtop_informer_store_objects": 20, "informtop_reflector_lists_total": 1,
		"informtop_reflector_watches_total": 2, "informtop_informer_quiet_seconds": 3, "informtop_informer_store_estimated_bytes": 40960,
		"informtop_informer_queued_items": 4, "informtop_informer_oldest_queued_item_age_seconds": 1.5}
	p.informer(stuck, "deployments", informer)
	p.informer(fine, "deployments", informer)
	p.listener(fine, "deployments", "main.(*Controller)", map[string]float64{"informtop_listener_synced": 1, "informtop_listener_buffer_capacity": 1024})
	p.listener(stuck, "deployments", "main.(*Controller)", map[string]float64{
		"informtop_listener_pending_notifications": 19, "informtop_listener_buffer_capacity": 1024,
		"informtop_listener_oldest_pending_seconds": 44, "informtop_listener_synced": 0,
	})
	// The call that outlived 2 s: its series carries the frame.
	p.add("informtop_listener_callback_in_progress_seconds", labelsOf(stuck, map[string]string{"name": "deployments", "group": "apps",
		"version": "v1", "resource": "deployments", "listener": "main.(*Controller)", "frame": "main.(*Controller).misbehave (main.go:266)"}), 42)
	p.add("informtop_listener_delivered_total", labelsOf(fine, map[string]string{"name": "deployments", "group": "apps",
		"version": "v1", "resource": "deployments", "listener": "main.(*Controller)", "type": "add"}), 20)

	s := newSource(t, Options{URL: serveProm(t, p)})
	running(t, s)
	waitAnswered(t, s)
	f := s.Pull(0, 0)

	var order []string
	for _, pr := range f.Processes {
		order = append(order, pr.Name())
	}
	want := []string{"controllers · 10.0.0.3:6060", "shop/widgets-7d9f", "shop/gadgets-5c2a"}
	if strings.Join(order, "|") != strings.Join(want, "|") {
		t.Fatalf("processes %q, want worst first %q", order, want)
	}
	first := f.Processes[1]
	if first.Job != "controllers" || first.Instance != "10.0.0.1:6060" || first.Agent != "10.0.0.1:6060" || !first.Up ||
		first.Labels["pod"] != "widgets-7d9f" || len(first.Labels) != 2 {
		t.Errorf("the stalled process is %+v; want its job, instance, labels and the instance as its agent", first)
	}
	if len(first.Informers) != 1 || first.Informers[0] != "shop/widgets-7d9f · deployments" {
		t.Fatalf("its informers are %q, want the one named after the process", first.Informers)
	}
	if down := f.Processes[0]; down.Up || len(down.Informers) != 0 {
		t.Errorf("the target Prometheus cannot scrape is %+v; want it down with no informers", down)
	}
	var inf source.Informer
	for _, s := range f.Snapshots {
		if s.Name == first.Informers[0] {
			inf = s
		}
	}
	if inf.Resource != "deployments" || inf.Group != "apps" || !inf.Synced || inf.Store.Objects != 20 || inf.Reflector.Watches != 2 ||
		inf.Queue.Depth != 4 || inf.Memory.EstimatedBytes != 40960 || inf.Memory.BytesPerObject != 2048 {
		t.Errorf("the informer reads %+v", inf)
	}
	if got := inf.Taken.Sub(inf.Reflector.LastHeard); got != 3*time.Second {
		t.Errorf("last heard %s before the frame, want 3s (informtop_informer_quiet_seconds)", got)
	}
	if got := inf.Taken.Sub(inf.Queue.OldestEnqueued); got != 1500*time.Millisecond {
		t.Errorf("the queue's oldest row is %s old, want 1.5s", got)
	}
	if len(inf.Listeners) != 1 {
		t.Fatalf("listeners %+v, want one", inf.Listeners)
	}
	l := inf.Listeners[0]
	if l.Pending != 19 || !l.PendingEstimated || l.Capacity != 1024 || l.Synced || l.InCallback != source.CallbackUnknown ||
		inf.Taken.Sub(l.InCallbackSince) != 42*time.Second || inf.Taken.Sub(l.OldestPendingSince) != 44*time.Second {
		t.Errorf("the stalled listener reads %+v", l)
	}
	if l.Frame == nil || l.Frame.Function != "main.(*Controller).misbehave" || l.Frame.File != "main.go" || l.Frame.Line != 266 {
		t.Errorf("its frame is %+v, want main.(*Controller).misbehave at main.go:266", l.Frame)
	}
	h := source.RankProcesses(f.Processes, f.Snapshots, f.Taken, source.StallAfter)
	if h[0].Trouble != source.Down || h[1].Trouble != source.Stalled || h[1].Listener != "main.(*Controller)" || h[2].Trouble != source.Healthy {
		t.Errorf("health %+v, want down, stalled, ok", h)
	}
	for _, s := range f.Snapshots {
		if strings.HasPrefix(s.Name, "shop/gadgets-5c2a") && s.Listeners[0].Delivered.Add != 20 {
			t.Errorf("delivered %+v, want 20 adds", s.Listeners[0].Delivered)
		}
	}
	if len(f.Notes) == 0 || !strings.Contains(f.Notes[0], "3 controller processes") || f.Status.State != source.Live {
		t.Errorf("notes %q, status %+v", f.Notes, f.Status)
	}
}

// --selector goes into every query; a typo is a sentence before any.
func TestFleetSelectorIsInEveryQuery(t *testing.T) {
	p := &fakeProm{}
	tg := scrape{"job": "c", "instance": "h:1", "namespace": "shop"}
	p.scrapes(tg, 1)
	p.informer(tg, "pods", map[string]float64{"informtop_informer_synced": 1})
	s := newSource(t, Options{URL: serveProm(t, p), Selector: `{namespace="shop", cluster=~"eu.*"}`})
	running(t, s)
	waitAnswered(t, s)
	queries, _ := p.seen()
	if len(queries) < len(families)+1 {
		t.Fatalf("%d queries, want one for the targets and one per family (%d)", len(queries), len(families))
	}
	for _, q := range queries[:len(families)+1] {
		if strings.Count(q, `namespace="shop",cluster=~"eu.*"`) == 0 {
			t.Errorf("query %q lacks the selector", q)
		}
	}
	for _, bad := range []string{`namespace=shop`, `namespace~"x"`, `9ns="x"`, `ns=~"(("`, `a="x" b="y"`, `ns="unclosed`} {
		if _, err := New(Options{URL: "http://prometheus:9090", Selector: bad}); err == nil || !strings.Contains(err.Error(), "--selector") {
			t.Errorf("selector %q: error %v, want a sentence naming --selector", bad, err)
		}
	}
}

// A Prometheus that refuses, or has no informtop series, is said at once
// (ErrUnreachable), with what to do; the bearer token goes to it.
func TestFleetSaysWhyPrometheusCannotBeRead(t *testing.T) {
	p := &fakeProm{code: 401}
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newSource(t, Options{URL: serveProm(t, p), Auth: Auth{BearerToken: "--bearer-token-file"},
		Secrets: SecretFiles{"--bearer-token-file": {Flag: "--bearer-token-file", Path: tok, Limit: MaxTokenFileBytes, Token: true, What: "the bearer token"}}})
	running(t, s)
	err := s.WaitSynced(context.Background())
	if !errors.Is(err, source.ErrUnreachable) || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "--bearer-token-file") {
		t.Errorf("401: %v; want ErrUnreachable naming --bearer-token-file", err)
	}
	if _, auth := p.seen(); len(auth) == 0 || auth[0] != "Bearer s3cret" {
		t.Errorf("Authorization %q, want the token file's token", auth)
	}

	empty := newSource(t, Options{URL: serveProm(t, &fakeProm{})})
	running(t, empty)
	err = empty.WaitSynced(context.Background())
	if !errors.Is(err, source.ErrUnreachable) || !strings.Contains(err.Error(), "has no informtop_* series; is the agent's /metrics scraped?") {
		t.Errorf("no series: %v", err)
	}

	for url, want := range map[string]string{"": "no Prometheus URL", "prometheus:9090": "http or https", "ftp://x": "http or https", "http://u:p@x": "without user"} {
		if _, err := New(Options{URL: url}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("URL %q: %v, want %q", url, err, want)
		}
	}
}

// The fleet is a source like any other to the dashboard and reports.
func TestFleetConforms(t *testing.T) {
	p := &fakeProm{}
	tg := scrape{"job": "c", "instance": "h:1"}
	p.scrapes(tg, 1)
	p.informer(tg, "pods", map[string]float64{"informtop_informer_synced": 1})
	p.listener(tg, "pods", "handler", map[string]float64{"informtop_listener_synced": 1})
	s := newSource(t, Options{URL: serveProm(t, p)})
	running(t, s)
	waitAnswered(t, s)
	sourcetest.Conform(t, s, 0, nil)
	f := s.Pull(0, 0)
	f.Processes[0].Informers[0] = "scribbled"
	if s.Pull(0, 0).Processes[0].Informers[0] == "scribbled" {
		t.Error("a pull shares its processes with an earlier reader's frame")
	}
}

func newSource(t *testing.T, o Options) *Source {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A fleet larger than the bounds is cut, and the header says so and how
// to see the rest.
func TestFleetSaysWhenItCutTheFleet(t *testing.T) {
	p := &fakeProm{}
	for i := range 3 {
		tg := scrape{"job": "c", "instance": fmt.Sprintf("h:%d", i)}
		p.scrapes(tg, 1)
		p.informer(tg, "pods", map[string]float64{"informtop_informer_synced": 1})
	}
	s := newSource(t, Options{URL: serveProm(t, p), MaxProcesses: 2, MaxSeries: 3})
	running(t, s)
	waitAnswered(t, s)
	f := s.Pull(0, 0)
	if len(f.Processes) != 2 || f.Processes[0].Instance != "h:0" || f.Processes[1].Instance != "h:1" {
		t.Fatalf("processes %+v, want the first two by name", f.Processes)
	}
	for _, want := range []string{"showing 2 of 3 processes (the first by name): narrow --selector", "returned 3 series, the most asked for"} {
		if !strings.Contains(f.Status.Message, want) {
			t.Errorf("status %q lacks %q", f.Status.Message, want)
		}
	}
}

// A query Prometheus refuses (its JSON error) or an answer that is not a
// vector is a sentence in the status, and the source keeps trying.
func TestFleetSaysWhatPrometheusRefused(t *testing.T) {
	answers := map[string]string{
		"refused":   `{"status":"error","errorType":"bad_data","error":"parse error at char 3"}`,
		"matrix":    `{"status":"success","data":{"resultType":"matrix","result":[]}}`,
		"not json":  `<html>a login page</html>`,
		"bad value": `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"c"},"value":[1,"x"]}]}}`,
	}
	want := map[string]string{
		"refused":   "was refused: parse error at char 3 (bad_data)",
		"matrix":    `is a "matrix", not a vector`,
		"not json":  "is not Prometheus' JSON",
		"bad value": "series 0 of a vector result",
	}
	for name, body := range answers {
		t.Run(name, func(t *testing.T) {
			code := http.StatusOK
			if name == "refused" {
				code = http.StatusBadRequest
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(code)
				_, _ = w.Write([]byte(body))
			}))
			t.Cleanup(srv.Close)
			s := newSource(t, Options{URL: srv.URL})
			running(t, s)
			waitfor.Seen(t, "the first attempt's failure in the status", func() (bool, string) {
				st := s.Pull(0, 0).Status
				return st.LastError != "", fmt.Sprintf("%+v", st)
			})
			if st := s.Pull(0, 0).Status; !strings.Contains(st.Message, want[name]) || st.NextRetry.IsZero() {
				t.Errorf("status %+v; want a message with %q and a next attempt", st, want[name])
			}
		})
	}
}

// Two targets alike but for their cluster are two processes named apart
// by it, in the list, their informers' names and Process.Cluster; the
// label naming the cluster is the user's to choose.
func TestFleetClusterIsPartOfTheName(t *testing.T) {
	for _, label := range []string{"", "k8s_cluster"} {
		t.Run("label="+label, func(t *testing.T) {
			p := &fakeProm{}
			key := label
			if key == "" {
				key = DefaultClusterLabel
			}
			eu := scrape{"job": "c", "instance": "10.0.0.1:6060", "namespace": "shop", "pod": "orders-0", key: "eu-1"}
			us := scrape{"job": "c", "instance": "10.0.0.1:6060", "namespace": "shop", "pod": "orders-0", key: "us-1"}
			for _, tg := range []scrape{eu, us} {
				p.scrapes(tg, 1)
				p.informer(tg, "pods", map[string]float64{"informtop_informer_synced": 1})
			}
			s := newSource(t, Options{URL: serveProm(t, p), ClusterLabel: label})
			running(t, s)
			waitAnswered(t, s)
			f := s.Pull(0, 0)
			var names, clusters, informers []string
			for _, pr := range f.Processes {
				names = append(names, pr.Name())
				clusters = append(clusters, pr.Cluster)
				informers = append(informers, pr.Informers...)
			}
			if got, want := strings.Join(names, "|"), "eu-1/shop/orders-0|us-1/shop/orders-0"; got != want {
				t.Errorf("processes %q, want %q", got, want)
			}
			if got := strings.Join(clusters, "|"); got != "eu-1|us-1" {
				t.Errorf("clusters %q, want eu-1|us-1", got)
			}
			if got, want := strings.Join(informers, "|"), "eu-1/shop/orders-0 · pods|us-1/shop/orders-0 · pods"; got != want {
				t.Errorf("informers %q, want %q", got, want)
			}
		})
	}
	if _, err := New(Options{URL: "http://127.0.0.1:9090", ClusterLabel: "listener"}); err == nil || !strings.Contains(err.Error(), "--cluster-label") {
		t.Errorf("--cluster-label listener: %v, want a sentence naming the flag", err)
	}
}

// client-go's own informer has no queue, memory or buffer series: the
// fleet reads it as client-go's, whose views say those are unknown, not 0.
func TestFleetReadsAnAbsentQueueAsClientGos(t *testing.T) {
	p := &fakeProm{}
	tg := scrape{"job": "c", "instance": "h:1"}
	p.scrapes(tg, 1)
	p.informer(tg, "engine", map[string]float64{"informtop_informer_synced": 1})
	// As the agent exports client-go's: no queue, memory or capacity series.
	pods := labelsOf(tg, map[string]string{"name": "pods", "group": "", "version": "v1", "resource": "pods"})
	p.add("informtop_informer_synced", pods, 1)
	p.add("informtop_informer_store_objects", pods, 3)
	s := newSource(t, Options{URL: serveProm(t, p)})
	running(t, s)
	waitAnswered(t, s)
	impl := map[string]string{}
	for _, inf := range s.Pull(0, 0).Snapshots {
		impl[strings.TrimPrefix(inf.Name, "c · h:1 · ")] = inf.Implementation
	}
	if impl["pods"] != source.ImplementationClientGo || impl["engine"] == source.ImplementationClientGo {
		t.Errorf("implementations %v; want pods (no queue series) client-go's, engine (one) not", impl)
	}
}

// The agent's silent flag is what the fleet's views say, whichever limit
// the agent applied: 10m15s for an open watch, 75 s with none open (the
// fleet then reads the watch as down, which is why).
func TestFleetAgreesWithTheAgentsSilentFlag(t *testing.T) {
	for _, c := range []struct {
		quiet  float64
		silent bool
	}{{100, false}, {100, true}, {700, true}, {30, false}} {
		p := &fakeProm{}
		tg := scrape{"job": "c", "instance": "h:1"}
		p.scrapes(tg, 1)
		p.informer(tg, "pods", map[string]float64{"informtop_informer_synced": 1, "informtop_informer_quiet_seconds": c.quiet,
			"informtop_informer_silent": map[bool]float64{true: 1}[c.silent]})
		s := newSource(t, Options{URL: serveProm(t, p)})
		running(t, s)
		waitAnswered(t, s)
		inf := s.Pull(0, 0).Snapshots[0]
		if got := source.FreshnessOf(inf, inf.Taken).Silent; got != c.silent {
			t.Errorf("quiet %vs, the agent's flag %t: the fleet reads silent %t", c.quiet, c.silent, got)
		}
		// Silent sooner than an open watch can be: no watch was open.
		if got := source.StaleOf(inf); (got != "") != c.silent {
			t.Errorf("quiet %vs, the agent's flag %t: stale %q", c.quiet, c.silent, got)
		}
	}
}
