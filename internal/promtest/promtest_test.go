package promtest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/promtest"
)

// A server started for a test scrapes its target with the target's labels
// and the job's metrics path, answers its API, and is gone after Close.
func TestStartScrapesAndCloseStops(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/custom" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "# TYPE promtest_answer gauge")
		fmt.Fprintln(w, "promtest_answer 42")
	}))
	defer target.Close()

	s := promtest.Start(t, promtest.Config{Targets: []promtest.Target{{
		Job: "answer", Addr: strings.TrimPrefix(target.URL, "http://"), MetricsPath: "/custom",
		Labels: map[string]string{"namespace": "team-a"},
	}}})
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %q, want http://127.0.0.1:PORT", s.URL())
	}
	resp, err := http.Get(s.URL() + "/-/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/-/ready answered %s after Start", resp.Status)
	}

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client, err := api.NewClient(api.Config{Address: s.URL(), RoundTripper: tr})
	if err != nil {
		t.Fatal(err)
	}
	q := promv1.NewAPI(client)
	// Prometheus scrapes on its own interval: a minute's bound.
	waitfor.Within(t, time.Minute, "Prometheus to have the target's sample", func() (bool, string) {
		v, _, err := q.Query(context.Background(), `promtest_answer{job="answer",namespace="team-a"}`, time.Now())
		vec, ok := v.(model.Vector)
		return err == nil && ok && len(vec) == 1 && vec[0].Value == 42, fmt.Sprintf("the query answered %v, %v", v, err)
	})
	tr.CloseIdleConnections()

	pid := promtest.PID(s)
	s.Close()
	s.Close() // idempotent
	if !promtest.Exited(s) {
		t.Fatal("prometheus still running after Close")
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("process %d still exists after Close", pid)
	}
	if _, err := http.Get(s.URL() + "/-/ready"); err == nil {
		t.Fatal("the server still answers after Close")
	}
}

// Promtool names an executable from the same build.
func TestPromtool(t *testing.T) {
	fi, err := os.Stat(promtest.Promtool(t))
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("promtool %v, %v: want an executable", fi, err)
	}
}

// One job scrapes one path: two paths in a job are refused with a sentence
// saying what to do, before any process starts.
func TestConfigRefusesTwoPathsInAJob(t *testing.T) {
	_, err := promtest.ConfigYAML(promtest.Config{Targets: []promtest.Target{
		{Job: "j", Addr: "127.0.0.1:1"},
		{Job: "j", Addr: "127.0.0.1:2", MetricsPath: "/other"},
	}})
	if err == nil || !strings.Contains(err.Error(), "give them different jobs") {
		t.Fatalf("err %v, want one saying to give them different jobs", err)
	}
	out, err := promtest.ConfigYAML(promtest.Config{ScrapeInterval: 1500 * time.Millisecond, Targets: []promtest.Target{{Job: "j", Addr: "127.0.0.1:1"}}})
	if err != nil || !strings.Contains(string(out), "scrape_interval: 1500ms") || !strings.Contains(string(out), "evaluation_interval: 1000ms") {
		t.Fatalf("config %s, %v: want a 1500ms scrape interval and the 1 s default evaluation", out, err)
	}
}
