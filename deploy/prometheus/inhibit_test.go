package prometheus_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/informtop/informtop/internal/promtest"
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

// Alertmanager itself accepts the inhibition: `amtool check-config` on the
// file merged into the smallest configuration it completes (a route and
// its receiver), as a team merges it into theirs. It reads every rule
// (a matcher Alertmanager cannot parse, a misspelt key, fails it).
func TestInhibitionPassesAmtool(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "alertmanager", "informtop-inhibit.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		InhibitRules []yaml.Node `yaml:"inhibit_rules"`
	}
	if err := yaml.Unmarshal(data, &rules); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, inhibit []byte) (string, error) {
		t.Helper()
		cfg := append([]byte("route:\n  receiver: team\nreceivers:\n  - name: team\n"), inhibit...)
		path := filepath.Join(t.TempDir(), "alertmanager.yml")
		if err := os.WriteFile(path, cfg, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(promtest.Amtool(t), "check-config", path).CombinedOutput()
		return string(out), err
	}
	out, err := check(t, data)
	if err != nil {
		t.Fatalf("amtool check-config: %v\n%s", err, out)
	}
	if want := fmt.Sprintf(" - %d inhibit rules", len(rules.InhibitRules)); !strings.Contains(out, want) {
		t.Errorf("amtool check-config found other rules than the file's %d:\n%s", len(rules.InhibitRules), out)
	}
	// Matchers the UTF-8 parser of Alertmanager 0.27+ reads as they are,
	// not through the classic parser's fallback (which it warns of).
	if strings.Contains(out, "classic matchers parser") {
		t.Errorf("amtool check-config parsed a matcher with the classic fallback:\n%s", out)
	}
	// The check refuses what Alertmanager would: a misspelt key.
	bad := strings.Replace(string(data), "    equal:", "    equals:", 1)
	if bad == string(data) {
		t.Fatal("the file no longer has an equal list: update the test")
	}
	if out, err := check(t, []byte(bad)); err == nil {
		t.Errorf("amtool check-config accepted a misspelt key:\n%s", out)
	}
}
