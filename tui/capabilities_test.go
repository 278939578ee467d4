package tui

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
	"github.com/informtop/informtop/agent/verify"
)

// clusterConfig is the fixture as a source named "kube: prod".
func clusterConfig() sourcetest.Config {
	cfg := fixtureConfig()
	cfg.Kind, cfg.Title = "kube", "prod"
	return cfg
}

// pressRefused presses name and checks that it ran nothing and set the
// status sentence saying why.
func pressRefused(t *testing.T, h *harness, name, why string) {
	t.Helper()
	_, cmd := h.m.Update(keyMsg(name))
	if cmd != nil {
		t.Errorf("%s returned a command on a source that cannot serve it", name)
	}
	want := name + " does nothing on kube: prod: " + why
	if h.m.status.text != want || !h.m.status.bad {
		t.Errorf("after %s the status reads %q, want %q", name, h.m.status.text, want)
	}
	if !strings.Contains(h.screen(), name+" does nothing on kube: prod: ") {
		t.Errorf("the footer does not show why %s does nothing:\n%s", name, h.screen())
	}
}

// helpText is the help overlay's text, to look for key names in.
func helpText(h *harness) string {
	h.keys("?")
	defer h.keys("esc")
	return h.screen()
}

const (
	whyProcessing = "pause, step, batch step and resync need informers running inside informtop; this source shows informers running elsewhere"
	whyStall      = "stalling needs a listener informtop simulates (the demo's, or --listener NAME=DELAY on a cluster); this source has none"
	whyFaults     = "dropping the watch and expiring history need the demo's simulated API server; informtop never changes a real one"
	whyWorkload   = "the workload rate is the demo's simulated churn; this source's changes come from its cluster"
)

// A read-only source (an attached process, a replay) offers no control
// key: the footer and help show none, and each explains itself when
// pressed without reaching anything.
func TestReadOnlySourceOffersNoControl(t *testing.T) {
	f := sourcetest.New(clusterConfig())
	// The controls only report the pause state; no call may reach them.
	ctl := &sourcetest.Controller{}
	f.ReportPaused(ctl)
	h := newHarness(t, f)
	h.size(160, 48)
	h.frames(fixtureFrames)

	footer := lastLine(h.screen())
	for _, k := range []string{"pause", "step", "stall", "drop watch", "resync", "faster", "slower"} {
		if strings.Contains(footer, k) {
			t.Errorf("the footer offers %q on a read-only source: %q", k, footer)
		}
	}
	help := helpText(h)
	if !strings.Contains(help, "controls: none on this source") {
		t.Errorf("help does not say there are no controls:\n%s", help)
	}
	for _, k := range []string{"space pause", "n     step", "stall listener", "drop watch", "expire RV", "resync", "faster", "slower"} {
		if strings.Contains(help, k) {
			t.Errorf("help lists %q on a read-only source:\n%s", k, help)
		}
	}

	pressRefused(t, h, "space", whyProcessing)
	pressRefused(t, h, "n", whyProcessing)
	pressRefused(t, h, "r", whyProcessing)
	pressRefused(t, h, "w", whyFaults)
	pressRefused(t, h, "x", whyFaults)
	pressRefused(t, h, "+", whyWorkload)
	pressRefused(t, h, "-", whyWorkload)
	h.keys("3")
	pressRefused(t, h, "s", whyStall)
	if h.m.narration != nil || h.m.c.data.paused {
		t.Error("a refused key changed the dashboard's state")
	}
	if got := ctl.Calls(); len(got) != 0 {
		t.Errorf("controls were called on a read-only source: %v", got)
	}
}

// A real cluster's informers run in informtop: pause, step, resync and
// stall work, the simulated server's faults and workload rate do not.
func TestClusterSourceOffersProcessingAndStalling(t *testing.T) {
	src := sourcetest.NewCluster(sourcetest.New(clusterConfig()), nil)
	src.Ctl.SetStepResult(fixtureStep)
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)

	footer := lastLine(h.screen())
	if !strings.Contains(footer, "space pause") || !strings.Contains(footer, "n step") {
		t.Errorf("the footer does not offer pause and step: %q", footer)
	}
	help := helpText(h)
	for _, k := range []string{"controls (kube)", "space pause", "n     step", "r     resync", "s stall listener"} {
		if !strings.Contains(help, k) {
			t.Errorf("help lacks %q:\n%s", k, help)
		}
	}
	for _, k := range []string{"drop watch", "expire RV", "faster", "slower"} {
		if strings.Contains(help, k) {
			t.Errorf("help lists %q on a cluster:\n%s", k, help)
		}
	}

	h.keys("space")
	if !strings.Contains(h.screen(), "processing paused: press n to step one item") {
		t.Errorf("space did not pause:\n%s", h.screen())
	}
	h.keys("n", "esc", "r", "3", "s")
	if !strings.Contains(h.screen(), "listener audit") {
		t.Errorf("s did not stall the selected listener:\n%s", h.screen())
	}
	pressRefused(t, h, "w", whyFaults)
	pressRefused(t, h, "x", whyFaults)
	pressRefused(t, h, "+", whyWorkload)
	want := []string{"SetPaused(true)", "Step(pods)", "Resync(pods)", "ToggleStall(pods,audit)"}
	if got := src.Ctl.Calls(); !reflect.DeepEqual(got, want) {
		t.Errorf("controls called %v, want %v", got, want)
	}
}

// The source's own trouble leads the header, in the status's sentence,
// and leaves once the source is live again.
func TestHeaderShowsTheSourceStatus(t *testing.T) {
	f := sourcetest.New(clusterConfig())
	h := newHarness(t, f)
	h.size(160, 48)
	h.frames(2)
	if first := strings.Split(h.screen(), "\n")[0]; strings.Contains(first, "disconnected") {
		t.Fatalf("a live source shows trouble: %q", first)
	}
	// The harness delivers every frame as taken at t0.
	f.SetStatus(source.Status{State: source.Disconnected, LastError: "dial tcp 10.0.0.1:6060: connection refused",
		NextRetry: t0.Add(4 * time.Second)})
	h.frames(1)
	first := strings.Split(h.screen(), "\n")[0]
	if !strings.HasPrefix(first, "informtop · disconnected, retrying in 4s: dial tcp 10.0.0.1:6060: connection refused · prod › pods(all)[60] · watch up") {
		t.Fatalf("the header does not lead with the status: %q", first)
	}
	f.SetStatus(source.Status{State: source.Incompatible, Message: "the agent speaks version 3; this informtop reads 2"})
	h.frames(1)
	if first := strings.Split(h.screen(), "\n")[0]; !strings.Contains(first, "informtop · the agent speaks version 3; this informtop reads 2 · prod › pods") {
		t.Fatalf("a status message is not shown as it is: %q", first)
	}
	f.SetStatus(source.Status{State: source.Live})
	h.frames(1)
	if first := strings.Split(h.screen(), "\n")[0]; !strings.HasPrefix(first, "informtop · prod › pods(all)[60] RealFIFO") {
		t.Fatalf("the trouble stays after the source is live again: %q", first)
	}
}

// Event totals are the source's ring's (Frame.EventStats); drops are the
// events this dashboard never received. The ring counts every event it
// overwrote, read or not, so its Dropped is not what the viewer lost.
func TestEventTotalsComeFromTheFrame(t *testing.T) {
	cfg := clusterConfig()
	cfg.EventStats = &source.RingStats{Emitted: 987_654, Dropped: 4_321}
	h := newHarness(t, sourcetest.New(cfg))
	h.size(160, 48)
	h.frames(fixtureFrames)
	h.keys("5")
	screen := h.screen()
	if !strings.Contains(screen, "│ dashboard log overflow 0") || !strings.Contains(screen, "17 of 20 events · 987,654 emitted · 0 dropped") {
		t.Errorf("the ring's overwrites are shown as this view's drops:\n%s", screen)
	}

	// A reader that missed events shows its own loss: in the Events view
	// while the source kept every lifecycle event for it (per-item events
	// only went), in the header too once it may have missed some.
	msg := fetchData(h.src, h.m.c.data.cursor, t0)
	msg.missed = 9_000
	h.send(msg)
	if screen := h.screen(); !strings.Contains(screen, "│ dashboard log overflow 0") || !strings.Contains(screen, "987,654 emitted · 9,000 never read") {
		t.Errorf("missed per-item events are not counted in the Events view alone:\n%s", screen)
	}
	h.keys("g")
	if want := "↑ 9,000 watch events, pops, store updates and callbacks were never read: they came faster than the dashboard reads; lifecycle events are all kept."; !strings.Contains(h.screen(), want) {
		t.Errorf("at the top of the log, no %q:\n%s", want, h.screen())
	}
	msg = fetchData(h.src, h.m.c.data.cursor, t0)
	msg.missed, msg.eventStats.DroppedLifecycle = 1_000, 40
	h.send(msg)
	if screen := h.screen(); !strings.Contains(screen, "│ dashboard log overflow 40") || !strings.Contains(screen, "987,654 emitted · 10,000 never read") {
		t.Errorf("missed events that may be lifecycle events are not counted in the header:\n%s", screen)
	}
}

// A source without notes of its own (a real cluster) has the header say
// why the informer shown has not synced; the switcher says it for each.
func TestHeaderAndSwitcherSayWhyNotSynced(t *testing.T) {
	cfg := clusterConfig()
	cfg.Notes = nil
	const why = "denied: you may not list pods in namespace default (RBAC); the other resources keep working"
	cfg.Reasons = source.Reasons{"pods": why}
	h := newHarness(t, sourcetest.New(cfg))
	h.size(200, 48)
	h.frames(fixtureFrames)
	if third := strings.Split(h.screen(), "\n")[2]; !strings.Contains(third, "✗ not synced: "+why) {
		t.Errorf("the header does not say why pods has not synced: %q", third)
	}
	h.keys(":")
	if screen := h.screen(); !strings.Contains(screen, "pods") || !strings.Contains(screen, "denied: you may not list pods") {
		t.Errorf("the switcher does not say why:\n%s", screen)
	}
}

// v verifies the current informer's cache where the source can (a
// cluster): the answer lands on the status line, as an error when the
// cache differs; where it cannot, v says why.
func TestVerifyKey(t *testing.T) {
	src := sourcetest.NewVerifying(sourcetest.NewCluster(sourcetest.New(clusterConfig()), nil))
	src.SetVerify(verify.Result{Equal: true, ResourceVersion: "412", Objects: 3}, nil)
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)
	if help := helpText(h); !strings.Contains(help, "verify cache") {
		t.Errorf("help does not offer v on a source that verifies:\n%s", help)
	}
	h.keys("v")
	if got := lastLine(h.screen()); !strings.Contains(got, "pods: cache equals the server at RV 412 (3 objects)") {
		t.Errorf("status after v: %q", got)
	}
	src.SetVerify(verify.Result{ResourceVersion: "415", Objects: 3, Stale: []string{"default/web-1"}, StaleCount: 1}, nil)
	h.keys("v")
	if got := lastLine(h.screen()); !strings.Contains(got, "pods: cache differs from the server at RV 415: 1 stale (default/web-1)") {
		t.Errorf("status after v on a drifted cache: %q", got)
	}
	if got := src.Asked(); !reflect.DeepEqual(got, []string{"pods", "pods"}) {
		t.Errorf("verify asked about %v", got)
	}

	plain := newHarness(t, sourcetest.NewCluster(sourcetest.New(clusterConfig()), nil))
	plain.size(160, 48)
	plain.frames(fixtureFrames)
	pressRefused(t, plain, "v", "verify compares a cache with a real API server's LIST at the cache's resourceVersion: it works on a cluster, and on attach started with --verify --kubeconfig …")
}

// slowVerifier lists a first batch of pages, then waits to be cancelled:
// a comparison of a big cache in progress.
type slowVerifier struct {
	*sourcetest.Cluster
	listed chan struct{}
}

func (s slowVerifier) Controls() source.Controls {
	c := s.Cluster.Controls()
	c.Verifier = s
	return c
}

func (s slowVerifier) Verify(ctx context.Context, _ string) (verify.Result, error) {
	verify.ReportProgress(ctx, 37, 18500)
	close(s.listed)
	<-ctx.Done()
	return verify.Result{}, ctx.Err()
}

// A comparison of a big cache shows its pages as they come and esc
// cancels it: it never looks dead.
func TestVerifyShowsProgressAndCancels(t *testing.T) {
	src := slowVerifier{Cluster: sourcetest.NewCluster(sourcetest.New(clusterConfig()), nil), listed: make(chan struct{})}
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: 'v', Text: "v"})
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	<-src.listed
	if got := lastLine(h.screen()); !strings.Contains(got, "verifying pods") || !strings.Contains(got, "37 pages listed, 18,500 objects") || !strings.Contains(got, "esc cancels") {
		t.Fatalf("footer while verifying: %q", got)
	}
	h.keys("esc")
	h.send(<-done)
	if got := lastLine(h.screen()); !strings.Contains(got, "verify of pods cancelled") {
		t.Errorf("footer after esc: %q", got)
	}
}

// At 80 columns a long source title and a nonzero log overflow do not push
// the source's kind off the header: nothing else on screen says the
// cluster is the demo's.
func TestNarrowHeaderKeepsTheSourceKindBesideAnOverflow(t *testing.T) {
	cfg := clusterConfig()
	cfg.Kind, cfg.Title = "demo", "demo · watch-cache-window"
	h := newHarness(t, sourcetest.New(cfg))
	h.size(80, 24)
	h.frames(fixtureFrames)
	msg := fetchData(h.src, h.m.c.data.cursor, t0)
	msg.missed, msg.eventStats.DroppedLifecycle = 9_000, 9_000
	h.send(msg)
	line := strings.Split(h.screen(), "\n")[1]
	if !strings.HasPrefix(line, "demo │ informers ") || !strings.Contains(line, "log overflow 9,000") {
		t.Errorf("header line 2 at 80 columns: %q; want the kind first and the overflow kept", line)
	}
}
