package prometheus_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/deploy/prometheus"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/promtest"
)

// The stall rule's threshold and "for", as informtop.rules.yaml has them.
const stallThreshold, stallFor = 30 * time.Second, 30 * time.Second

// A real Prometheus with informtop's rules, scraping two example
// controllers on the real API server, one with its handler blocked: the
// stall alert fires for the blocked one only, within threshold + for + two
// intervals (and the scrape's own duration) of the call's start by
// Prometheus's own clock, with the stuck frame in its labels and
// description.
func TestStallAlertFiresInARealPrometheus(t *testing.T) {
	c := kubetest.Shared(t)
	namespaceWithDeployments(t, c, "rules-blocked", 3)
	namespaceWithDeployments(t, c, "rules-healthy", 3)
	blocked := startController(t, c, "rules-blocked", true)
	healthy := startController(t, c, "rules-healthy", false)
	const interval = time.Second
	s := promtest.Start(t, promtest.Config{
		Targets: []promtest.Target{
			{Job: "client-go-controller", Addr: blocked.Addr(), Labels: map[string]string{"namespace": "rules-blocked", "pod": "blocked-0"}},
			{Job: "client-go-controller", Addr: healthy.Addr(), Labels: map[string]string{"namespace": "rules-healthy", "pod": "healthy-0"}},
		},
		RuleFiles:      []string{prometheus.RulesFile},
		ScrapeInterval: interval,
		EvalInterval:   interval,
	})
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client, err := api.NewClient(api.Config{Address: s.URL(), RoundTripper: tr})
	if err != nil {
		t.Fatal(err)
	}
	q := promv1.NewAPI(client)
	ctx := context.Background()

	// Poll /api/v1/alerts twice per scrape interval; the bound on the time
	// it took is checked below on Prometheus's timestamps, so this wait's
	// bound only ends a broken run.
	var stalled []promv1.Alert
	waitfor.Every(t, interval/2, 4*time.Minute, "InformtopListenerStalled to fire", func() (bool, string) {
		res, err := q.Alerts(ctx)
		if err != nil {
			t.Fatalf("GET /api/v1/alerts: %v", err)
		}
		stalled = stalled[:0]
		firing := false
		for _, a := range res.Alerts {
			if a.Labels["alertname"] == "InformtopListenerStalled" {
				stalled = append(stalled, a)
				firing = firing || a.State == promv1.AlertStateFiring
			}
		}
		return firing, fmt.Sprintf("the alerts: %+v", res.Alerts)
	})

	if len(stalled) != 1 {
		t.Fatalf("%d InformtopListenerStalled alerts, want one (the blocked controller's): %+v", len(stalled), stalled)
	}
	a := stalled[0]
	frame := string(a.Labels["frame"])
	if a.Labels["instance"] != model.LabelValue(blocked.Addr()) || a.Labels["pod"] != "blocked-0" || a.Labels["namespace"] != "rules-blocked" ||
		a.Labels["listener"] != "main.(*Controller)" || a.Labels["name"] != "deployments" || a.Labels["severity"] != "critical" {
		t.Errorf("the alert's labels %v, want the blocked controller's instance %s, pod rules-blocked/blocked-0, listener main.(*Controller), informer deployments, severity critical",
			a.Labels, blocked.Addr())
	}
	if !strings.HasPrefix(frame, "main.(*Controller).misbehave (") {
		t.Errorf("the alert's frame %q, want the example's main.(*Controller).misbehave (file:line)", frame)
	}
	desc := string(a.Annotations["description"])
	for _, want := range []string{"Controller client-go-controller (pod rules-blocked/blocked-0, instance " + blocked.Addr() + ")",
		"handler main.(*Controller)", "informer deployments (resource deployments.apps)", ", in " + frame + "."} {
		if !strings.Contains(desc, want) {
			t.Errorf("the description %q does not say %q", desc, want)
		}
	}
	t.Logf("firing: %s\n%s", a.Annotations["summary"], desc)

	// When, by Prometheus's clock: the call began at each sample's
	// timestamp minus its value; the alert first fired at the first sample
	// of ALERTS{alertstate="firing"}.
	sel := `{alertname="InformtopListenerStalled",alertstate="firing"}`
	firstFiring := earliest(t, q, `ALERTS`+sel+`[10m]`)
	began := latestStart(t, q, `informtop_listener_callback_in_progress_seconds{instance="`+blocked.Addr()+`",frame!=""}[10m]`)
	took := firstFiring.Sub(began)
	// One scrape interval until a sample is past the threshold, one
	// evaluation interval until the rule reads it, and up to a second for
	// the scrape itself (the sample is stamped when the scrape starts, and
	// the rule sees it once the scrape is stored).
	bound := stallThreshold + stallFor + 2*interval + time.Second
	t.Logf("the stall alert fired %s after the call began (bound %s)", took.Round(time.Millisecond), bound)
	// Not sooner than threshold and for, less the time the agent took to
	// answer the scrape: its figure is read after the sample's timestamp.
	early := stallThreshold + stallFor - interval
	if took > bound || took < early {
		t.Errorf("the alert fired %s after the call began; want between %s and %s", took, early, bound)
	}

	// The healthy controller was scraped all along, idle, and has no
	// alert of this kind, pending or firing.
	h := `{instance="` + healthy.Addr() + `"}`
	if v := instant(t, q, `up`+h); len(v) != 1 || v[0].Value != 1 {
		t.Errorf("up%s = %v, want 1", h, v)
	}
	if v := instant(t, q, `max_over_time(informtop_listener_callback_in_progress_seconds`+h+`[10m])`); len(v) != 1 || v[0].Value >= 2 {
		t.Errorf("the healthy controller's longest callback %v, want one listener under 2 s", v)
	}
	if v := instant(t, q, `ALERTS{alertname="InformtopListenerStalled",instance="`+healthy.Addr()+`"}`); len(v) != 0 {
		t.Errorf("the healthy controller has stall alerts: %v", v)
	}
}

func instant(t *testing.T, q promv1.API, expr string) model.Vector {
	t.Helper()
	v, _, err := q.Query(context.Background(), expr, time.Now())
	if err != nil {
		t.Fatalf("query %s: %v", expr, err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		t.Fatalf("query %s answered a %s, want a vector", expr, v.Type())
	}
	return vec
}

// rangeSamples runs a range-vector selector and returns its raw samples.
func rangeSamples(t *testing.T, q promv1.API, expr string) []model.SamplePair {
	t.Helper()
	v, _, err := q.Query(context.Background(), expr, time.Now())
	if err != nil {
		t.Fatalf("query %s: %v", expr, err)
	}
	m, ok := v.(model.Matrix)
	if !ok || len(m) != 1 || len(m[0].Values) == 0 {
		t.Fatalf("query %s answered %v, want one series with samples", expr, v)
	}
	return m[0].Values
}

func earliest(t *testing.T, q promv1.API, expr string) time.Time {
	return rangeSamples(t, q, expr)[0].Timestamp.Time()
}

// latestStart is when the call began by the last sample: its timestamp
// less its value (seconds in the call).
func latestStart(t *testing.T, q promv1.API, expr string) time.Time {
	s := rangeSamples(t, q, expr)
	last := s[len(s)-1]
	return last.Timestamp.Time().Add(-time.Duration(float64(last.Value) * float64(time.Second)))
}
