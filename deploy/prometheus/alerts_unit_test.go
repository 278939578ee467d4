package prometheus_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"go.yaml.in/yaml/v3"

	"github.com/informtop/informtop/deploy/prometheus"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/internal/promtest"
)

// Labels Prometheus itself adds to every scraped series (job, instance)
// or that a Kubernetes scrape configuration usually keeps as target labels.
var targetLabels = []string{"job", "instance", "namespace", "pod"}

// The alerts fire, with the controller, informer, listener and stuck frame
// in their labels and text, on series whose names and labels are those of
// a real scrape, in this run, of the example controller's agent with its
// handler blocked: a renamed metric or label fails `promtool test rules`.
// Only the values are shaped per case.
func TestAlertsOnSeriesFromARealScrape(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "rules-unit"
	namespaceWithDeployments(t, c, ns, 3)
	ctl := startController(t, c, ns, true)

	// The frame label appears once the stuck call has run 2 s.
	var fams map[string]*dto.MetricFamily
	deadline := time.Now().Add(60 * time.Second)
	for {
		fams = ctl.scrape(t)
		if stalledSeries(fams) != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no informtop_listener_callback_in_progress_seconds series with a frame after 60 s of a blocked handler; the scrape had %v",
				fams["informtop_listener_callback_in_progress_seconds"])
		}
		time.Sleep(200 * time.Millisecond)
	}

	rules := readRules(t)
	for _, name := range metricNames(rules) {
		if fams[name] == nil {
			t.Errorf("the rules read %s, which the agent does not export", name)
		}
	}
	exported := map[string]bool{}
	for name, f := range fams {
		if strings.HasPrefix(name, "informtop_") {
			for _, m := range f.GetMetric() {
				for _, lp := range m.GetLabel() {
					exported[lp.GetName()] = true
				}
			}
		}
	}
	for _, l := range labelNames(rules) {
		if !exported[l] && !slices.Contains(targetLabels, l) {
			t.Errorf("the rules use the label %s, which no informtop series of the agent has", l)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	s := scrapedSeries{t: t, fams: fams}
	file := promtoolFile{
		RuleFiles:          []string{mustAbs(t, prometheus.RulesFile)},
		EvaluationInterval: "1s",
		Tests: []unitTest{
			stalledCase(s), backlogCase(s), silentCase(s), notSyncedCase(s), relistCase(s), panicsCase(s),
		},
	}
	data, err := yaml.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "informtop.rules.test.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtest.Promtool(t), "test", "rules", path).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules: %v\n%s\nthe test file:\n%s", err, out, data)
	}
	t.Logf("promtool test rules: %s", strings.TrimSpace(string(out)))
}

func mustAbs(t *testing.T, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// stalledSeries is the label set of the scraped stuck call's series (the
// one with a frame), or nil.
func stalledSeries(fams map[string]*dto.MetricFamily) labelSet {
	for _, m := range fams["informtop_listener_callback_in_progress_seconds"].GetMetric() {
		l := labelsOf(m)
		if l["frame"] != "" && m.GetGauge().GetValue() > 0 {
			return l
		}
	}
	return nil
}

func labelsOf(m *dto.Metric) labelSet {
	l := labelSet{}
	for _, lp := range m.GetLabel() {
		if lp.GetValue() != "" {
			l[lp.GetName()] = lp.GetValue()
		}
	}
	return l
}

// scrapedSeries hands out the label sets of the real scrape.
type scrapedSeries struct {
	t    *testing.T
	fams map[string]*dto.MetricFamily
}

// only is the label set of the one series of family name (of the first
// when it has several, as informtop_listener_delivered_total has per type).
func (s scrapedSeries) only(name string) labelSet {
	s.t.Helper()
	ms := s.fams[name].GetMetric()
	if len(ms) == 0 {
		s.t.Fatalf("the scrape has no %s series", name)
	}
	return labelsOf(ms[0])
}

// Two processes of one controller: a pod that Kubernetes service discovery
// found (namespace and pod kept as target labels) and a plain static target.
var (
	inPod = map[string]string{"job": "client-go-controller", "instance": "10.0.0.7:6060", "namespace": "team-a", "pod": "controller-7d9f-x2x4q"}
	bare  = map[string]string{"job": "client-go-controller", "instance": "127.0.0.1:6061"}
	other = map[string]string{"job": "client-go-controller", "instance": "127.0.0.1:6062"}
)

// controllerText names the process as every alert's description does.
func controllerText(l labelSet) string {
	where := ""
	if l["pod"] != "" {
		where = fmt.Sprintf("pod %s/%s, ", l["namespace"], l["pod"])
	}
	return fmt.Sprintf("Controller %s (%sinstance %s)", l["job"], where, l["instance"])
}

// informerText names the informer as the descriptions do.
func informerText(l labelSet) string {
	res := l["resource"]
	if l["group"] != "" {
		res += "." + l["group"]
	}
	return fmt.Sprintf("informer %s (resource %s)", l["name"], res)
}

func runbook(alert string) string {
	return "https://github.com/informtop/informtop/blob/main/docs/runbook.md#" + strings.ToLower(alert)
}

// stalledCase: a call that has lasted 90 s in two processes (one in a pod,
// with its frame; one without), next to an idle listener.
func stalledCase(s scrapedSeries) unitTest {
	const name = "informtop_listener_callback_in_progress_seconds"
	stuck := stalledSeries(s.fams)
	a, b := stuck.with(inPod), stuck.with(bare).without("frame")
	idle := stuck.with(other).without("frame")
	want := func(l labelSet) expAlert {
		frame := ""
		if l["frame"] != "" {
			frame = ", in " + l["frame"]
		}
		return expAlert{
			ExpLabels: alertLabels(l, "critical"),
			ExpAnnotations: map[string]string{
				"summary": fmt.Sprintf("Handler %s of informer %s in %s has been stuck in one callback for 1m 30s", l["listener"], l["name"], l["job"]),
				"description": fmt.Sprintf("%s: the event handler %s of %s has been inside one callback for 1m 30s%s. "+
					"Every later notification waits behind it, so its backlog grows and the controller acts on stale objects.",
					controllerText(l), l["listener"], informerText(l), frame),
				"runbook_url": runbook("InformtopListenerStalled"),
			},
		}
	}
	return unitTest{
		Name:     "a handler stuck in one callback",
		Interval: "1s",
		InputSeries: []inputSeries{
			{selector(name, a), "0+1x120"},
			{selector(name, b), "0+1x120"},
			{selector(name, idle), "0x120"},
		},
		AlertRuleTests: []alertTest{
			// Over 30 s but not for 30 s yet: pending, not firing.
			{EvalTime: "45s", Alertname: "InformtopListenerStalled"},
			{EvalTime: "90s", Alertname: "InformtopListenerStalled", ExpAlerts: []expAlert{want(a), want(b)}},
		},
		PromqlExprTests: []exprTest{{
			Expr:     "job:informtop_listener_callback_in_progress_seconds:max",
			EvalTime: "90s",
			ExpSamples: []expSample{
				{Labels: selector("job:informtop_listener_callback_in_progress_seconds:max", labelSet{"job": a["job"]}), Value: 90},
			},
		}, {
			Expr:     `instance:informtop_listener_callback_in_progress_seconds:max{instance="` + other["instance"] + `"}`,
			EvalTime: "90s",
			ExpSamples: []expSample{
				{Labels: selector("instance:informtop_listener_callback_in_progress_seconds:max", labelSet(other)), Value: 0},
			},
		}},
	}
}

// backlogCase: one backlog growing by 10 a minute from 150, one flat at 500.
func backlogCase(s scrapedSeries) unitTest {
	const name = "informtop_listener_pending_notifications"
	l := s.only(name)
	growing, flat := l.with(inPod), l.with(bare)
	return unitTest{
		Name:     "a growing backlog",
		Interval: "1m",
		InputSeries: []inputSeries{
			{selector(name, growing), "150+10x40"},
			{selector(name, flat), "500x40"},
		},
		AlertRuleTests: []alertTest{
			{EvalTime: "8m", Alertname: "InformtopListenerBacklogGrowing"},
			{EvalTime: "25m", Alertname: "InformtopListenerBacklogGrowing", ExpAlerts: []expAlert{{
				ExpLabels: alertLabels(growing, "warning"),
				ExpAnnotations: map[string]string{
					"summary": fmt.Sprintf("The backlog of handler %s of informer %s in %s has grown for 10 minutes, to 400", growing["listener"], growing["name"], growing["job"]),
					"description": fmt.Sprintf("%s: the event handler %s of %s has 400 notifications waiting and the number has grown for 10 minutes: "+
						"it handles events slower than the API server sends them, and the backlog is held in memory until it drains or the process is killed.",
						controllerText(growing), growing["listener"], informerText(growing)),
					"runbook_url": runbook("InformtopListenerBacklogGrowing"),
				},
			}}},
		},
		PromqlExprTests: []exprTest{{
			Expr:     "listener:informtop_listener_pending_notifications:deriv10m",
			EvalTime: "25m",
			ExpSamples: []expSample{
				{Labels: selector("listener:informtop_listener_pending_notifications:deriv10m", growing), Value: 10.0 / 60},
				{Labels: selector("listener:informtop_listener_pending_notifications:deriv10m", flat), Value: 0},
			},
		}},
	}
}

// silentCase: an informer that has heard nothing since minute 0, flagged
// silent from minute 5, and one that hears from the server.
func silentCase(s scrapedSeries) unitTest {
	l := s.only("informtop_informer_silent")
	quiet, fine := l.with(bare), l.with(other)
	return unitTest{
		Name:     "a silent watch",
		Interval: "1m",
		InputSeries: []inputSeries{
			{selector("informtop_informer_silent", quiet), "0x4 1x16"},
			{selector("informtop_informer_quiet_seconds", quiet), "0+60x20"},
			{selector("informtop_informer_silent", fine), "0x20"},
			{selector("informtop_informer_quiet_seconds", fine), "5x20"},
		},
		AlertRuleTests: []alertTest{
			{EvalTime: "8m", Alertname: "InformtopWatchSilent"},
			{EvalTime: "12m", Alertname: "InformtopWatchSilent", ExpAlerts: []expAlert{{
				ExpLabels: alertLabels(quiet, "warning"),
				ExpAnnotations: map[string]string{
					"summary": fmt.Sprintf("Informer %s in %s has heard nothing from the API server for 12m 0s", quiet["name"], quiet["job"]),
					"description": fmt.Sprintf("%s: %s has had no event, bookmark, list page or new watch for 12m 0s, longer than the API server's bookmarks allow: "+
						"its watch may be hung, and its cache may be going stale without an error.", controllerText(quiet), informerText(quiet)),
					"runbook_url": runbook("InformtopWatchSilent"),
				},
			}}},
		},
	}
}

// notSyncedCase: an informer that never syncs and one that syncs at
// minute 2.
func notSyncedCase(s scrapedSeries) unitTest {
	l := s.only("informtop_informer_synced")
	stuck, synced := l.with(inPod), l.with(bare)
	return unitTest{
		Name:     "an informer that does not sync",
		Interval: "1m",
		InputSeries: []inputSeries{
			{selector("informtop_informer_synced", stuck), "0x20"},
			{selector("informtop_informer_synced", synced), "0 0 1x18"},
		},
		AlertRuleTests: []alertTest{
			{EvalTime: "9m", Alertname: "InformtopInformerNotSynced"},
			{EvalTime: "11m", Alertname: "InformtopInformerNotSynced", ExpAlerts: []expAlert{{
				ExpLabels: alertLabels(stuck, "warning"),
				ExpAnnotations: map[string]string{
					"summary": fmt.Sprintf("Informer %s in %s has not synced in 10 minutes", stuck["name"], stuck["job"]),
					"description": fmt.Sprintf("%s: %s has not finished its first list 10 minutes after it started, "+
						"so a controller waiting for the caches to sync has not begun its work.", controllerText(stuck), informerText(stuck)),
					"runbook_url": runbook("InformtopInformerNotSynced"),
				},
			}}},
		},
		PromqlExprTests: []exprTest{{
			Expr:     "instance:informtop_informer_unsynced:sum",
			EvalTime: "11m",
			ExpSamples: []expSample{
				{Labels: selector("instance:informtop_informer_unsynced:sum", labelSet(inPod)), Value: 1},
				{Labels: selector("instance:informtop_informer_unsynced:sum", labelSet(bare)), Value: 0},
			},
		}},
	}
}

// relistCase: a reflector relisting every minute, and one that relisted
// once.
func relistCase(s scrapedSeries) unitTest {
	const name = "informtop_reflector_relists_total"
	l := s.only(name)
	looping, once := l.with(bare), l.with(other)
	return unitTest{
		Name:     "a relist loop",
		Interval: "1m",
		InputSeries: []inputSeries{
			{selector(name, looping), "0+1x20"},
			{selector(name, once), "0x5 1x15"},
		},
		AlertRuleTests: []alertTest{
			{EvalTime: "20m", Alertname: "InformtopRelistLoop", ExpAlerts: []expAlert{{
				ExpLabels: alertLabels(looping, "warning"),
				ExpAnnotations: map[string]string{
					"summary": fmt.Sprintf("Informer %s in %s listed everything again 15 times in 15 minutes", looping["name"], looping["job"]),
					"description": fmt.Sprintf("%s: the reflector of %s started 15 full lists after a complete one in 15 minutes. "+
						"Each relist reads every object from the API server again; a loop of them costs the API server and etcd and means the watch keeps failing.",
						controllerText(looping), informerText(looping)),
					"runbook_url": runbook("InformtopRelistLoop"),
				},
			}}},
		},
	}
}

// panicsCase: a handler that panicked twice at minute 5.
func panicsCase(s scrapedSeries) unitTest {
	const name = "informtop_listener_panics_total"
	l := s.only(name)
	panicking, fine := l.with(inPod), l.with(bare)
	return unitTest{
		Name:     "a panicking handler",
		Interval: "1m",
		InputSeries: []inputSeries{
			{selector(name, panicking), "0x4 2x15"},
			{selector(name, fine), "0x20"},
		},
		AlertRuleTests: []alertTest{
			{EvalTime: "3m", Alertname: "InformtopListenerPanics"},
			{EvalTime: "8m", Alertname: "InformtopListenerPanics", ExpAlerts: []expAlert{{
				ExpLabels: alertLabels(panicking, "warning"),
				ExpAnnotations: map[string]string{
					"summary": fmt.Sprintf("Handler %s of informer %s in %s panicked 2 times in 10 minutes", panicking["listener"], panicking["name"], panicking["job"]),
					"description": fmt.Sprintf("%s: the event handler %s of %s panicked 2 times in 10 minutes. "+
						"The process survived them, so each notification being handled was lost to this handler.",
						controllerText(panicking), panicking["listener"], informerText(panicking)),
					"runbook_url": runbook("InformtopListenerPanics"),
				},
			}}},
		},
	}
}
