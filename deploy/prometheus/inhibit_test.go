package prometheus_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The Alertmanager inhibition example silences BacklogGrowing only where
// Stalled fires for the same handler of the same process: its alert names
// are the rules', and its equal labels are ones both alerts carry (or
// target labels both may lack), the handler's among them, the stall's
// frame not (the backlog alert has none, so it would never match).
func TestInhibitionNamesTheSameHandler(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "alertmanager", "informtop-inhibit.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		InhibitRules []struct {
			SourceMatchers []string `yaml:"source_matchers"`
			TargetMatchers []string `yaml:"target_matchers"`
			Equal          []string `yaml:"equal"`
		} `yaml:"inhibit_rules"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.InhibitRules) != 1 {
		t.Fatalf("%d inhibit rules, want the one", len(cfg.InhibitRules))
	}
	r := cfg.InhibitRules[0]
	alertname := func(ms []string) string {
		if len(ms) != 1 {
			return ""
		}
		k, v, ok := strings.Cut(ms[0], "=")
		if !ok || strings.TrimSpace(k) != "alertname" {
			return ""
		}
		return strings.Trim(strings.TrimSpace(v), `"`)
	}
	source, target := alertname(r.SourceMatchers), alertname(r.TargetMatchers)
	if source != "InformtopListenerStalled" || target != "InformtopListenerBacklogGrowing" {
		t.Fatalf("inhibits %q by %q, want InformtopListenerBacklogGrowing by InformtopListenerStalled", target, source)
	}
	// The labels each alert fires with, as the shipped tests expect them.
	var f promtoolFile
	tests, err := os.ReadFile(testFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(tests, &f); err != nil {
		t.Fatal(err)
	}
	fired := map[string]map[string]string{}
	for _, ut := range f.Tests {
		for _, a := range ut.AlertRuleTests {
			if len(a.ExpAlerts) > 0 && fired[a.Alertname] == nil {
				fired[a.Alertname] = a.ExpAlerts[0].ExpLabels
			}
		}
	}
	src, dst := fired[source], fired[target]
	if src == nil || dst == nil {
		t.Fatalf("the shipped tests fire %s: %v and %s: %v", source, src, target, dst)
	}
	for _, l := range r.Equal {
		_, inSrc := src[l]
		_, inDst := dst[l]
		if !(inSrc && inDst) && !slices.Contains(targetLabels, l) {
			t.Errorf("equal has %s, which %s or %s does not carry: the inhibition would never match", l, source, target)
		}
	}
	for _, l := range []string{"name", "listener", "job", "instance"} {
		if !slices.Contains(r.Equal, l) {
			t.Errorf("equal lacks %s: a stall would silence the backlog of another handler or process", l)
		}
	}
	if slices.Contains(r.Equal, "frame") || slices.Contains(r.Equal, "severity") {
		t.Errorf("equal %v has a label only one of the alerts carries", r.Equal)
	}
}
