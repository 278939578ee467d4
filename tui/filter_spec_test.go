package tui

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/source"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source/sourcetest"
)

// storeRows are the Store view's visible keys, in order.
func storeRows(h *harness) []string {
	sv := h.m.views[viewStore].(*storeView)
	var out []string
	for r := 0; r < sv.scroll.n; r++ {
		out = append(out, sv.keys[sv.row(r)])
	}
	return out
}

// typeText types each character of s as its own key press.
func (h *harness) typeText(s string) {
	for _, r := range s {
		if r == ' ' {
			h.keys("space")
			continue
		}
		h.keys(string(r))
	}
}

// As in k9s, plain text is a case-insensitive regular expression: an
// anchor works, and nothing is matched character by character.
func TestStoreFilterTextIsRegexpOrSubstring(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("4", "/")
	h.typeText("^KUBE-system/coredns-1")
	got := storeRows(h)
	if len(got) != 3 || got[0] != "kube-system/coredns-1" || got[2] != "kube-system/coredns-11" {
		t.Fatalf("regexp ^KUBE-system/coredns-1 kept %v", got)
	}
	h.keys("esc", "/")
	h.typeText("/^kube-system/coredns-1/") // slashes around a regexp, k9s-style
	if got := storeRows(h); len(got) != 3 {
		t.Fatalf("/^kube-system/coredns-1/ kept %v", got)
	}
	// $ ends the key, not the labels after it: the fixture's coredns pods
	// are labelled, and coredns-1 ends only one key.
	h.keys("esc", "/")
	h.typeText("coredns-1$")
	if got := storeRows(h); len(got) != 1 || got[0] != "kube-system/coredns-1" {
		t.Fatalf("coredns-1$ kept %v", got)
	}
	h.keys("esc", "/")
	h.typeText("app=cart")
	if got := storeRows(h); len(got) != 0 {
		t.Fatalf("app=cart is text, it must not match fuzzily: kept %v", got)
	}
	h.keys("esc", "/")
	h.typeText("web-(0|1") // not a valid regexp: refused with the parser's reason, no panic
	if got := storeRows(h); len(got) != 0 || !strings.Contains(h.screen(), "not a regular expression: missing closing )") {
		t.Fatalf("a broken regexp must be refused with its error: kept %v\n%s", got, h.screen())
	}
	wholeRefusal(t, h.screen())
	h.keys("enter")
	if s := h.screen(); !strings.Contains(s, "not a regular expression: missing closing )") {
		t.Fatalf("the refusal is gone once the prompt is left:\n%s", s)
	}
	// The Events view says it as whole, where its rows would be.
	h.keys("esc", "5", "/")
	h.typeText("web-(0|1")
	wholeRefusal(t, h.screen())
}

// wholeRefusal checks that an 80-column screen says why a filter is
// refused once and whole: wrapped, not cut.
func wholeRefusal(t *testing.T, screen string) {
	t.Helper()
	const why = `not a regular expression: missing closing ) (a \ before a character searches for it as it is)`
	if n := strings.Count(screen, "missing closing )"); n != 1 || !strings.Contains(strings.Join(strings.Fields(screen), " "), why) {
		t.Errorf("the reason is said %d times, or not whole; want once: %s\n%s", n, why, screen)
	}
}

func TestStoreFilterLabelSelectorAndFuzzy(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("4", "/")
	h.typeText("-l app=coredns,tier in (frontend)")
	if got := storeRows(h); len(got) != 12 || !strings.HasPrefix(got[0], "kube-system/coredns-") {
		t.Fatalf("-l app=coredns kept %d rows: %v", len(got), got)
	}
	h.keys("esc", "/")
	h.typeText("-l app!=web")
	if got := storeRows(h); len(got) != 12 {
		t.Fatalf("-l app!=web kept %d rows", len(got))
	}
	h.keys("esc", "/")
	h.typeText("-l app in (web")
	if got := storeRows(h); len(got) != 0 || !strings.Contains(h.screen(), "not a label selector") {
		t.Fatalf("a bad selector must say so and match nothing; kept %d\n%s", len(got), h.screen())
	}
	h.keys("esc", "/")
	h.typeText("-f cdns11")
	if got := storeRows(h); len(got) != 1 || got[0] != "kube-system/coredns-11" {
		t.Fatalf("-f cdns11 kept %v", got)
	}
}

func TestEventsFieldFilters(t *testing.T) {
	h := fixture(t, 160, 48)
	h.keys("5", "a", "/")
	ev := h.m.views[viewEvents].(*eventsView)
	types := func() []string {
		var out []string
		for _, i := range ev.rows {
			out = append(out, h.m.c.data.events.at(i).Type.String())
		}
		return out
	}
	h.typeText("type:relist")
	if got := types(); len(got) != 1 || got[0] != "Relist" {
		t.Fatalf("type:relist kept %v", got)
	}
	h.keys("esc", "/")
	h.typeText("listener:audit key:default/web-4")
	if got := types(); len(got) != 1 || got[0] != "HandlerPanic" {
		t.Fatalf("listener:audit key:default/web-4 kept %v", got)
	}
	h.keys("esc", "/")
	h.typeText("type:Nope")
	if got := types(); len(got) != 0 || !strings.Contains(h.screen(), `no event type "Nope"; types are ListPage`) {
		t.Fatalf("an unknown type must be a sentence; kept %v\n%s", got, h.screen())
	}
	h.keys("esc", "/")
	h.typeText("-l app=web")
	if !strings.Contains(h.screen(), "only the Store view (4) shows labels") {
		t.Fatalf("-l outside the Store view must say why it does nothing:\n%s", h.screen())
	}
}

// Whole-store rows have no key; their label is what the filter sees.
func TestQueueFilterMatchesKeylessRows(t *testing.T) {
	cfg := fixtureConfig()
	for i := range cfg.Frames {
		s := &cfg.Frames[i][0]
		s.Queue.Head = append([]source.QueueItem{{Types: []cache.DeltaType{cache.ReplacedAll}}, {Types: []cache.DeltaType{cache.Bookmark}}}, s.Queue.Head...)
	}
	h := newHarness(t, newControlledSource(cfg, &sourcetest.Controller{}))
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("2", "/")
	h.typeText("bookmark")
	qv := h.m.views[viewQueue].(*queueView)
	if len(qv.rows) != 1 || qv.rows[0] != 1 {
		t.Fatalf("bookmark kept rows %v", qv.rows)
	}
	h.keys("esc", "/")
	h.typeText("Replaced")
	if len(qv.rows) != 1 || qv.rows[0] != 0 {
		t.Fatalf("Replaced kept rows %v", qv.rows)
	}
}

// A sorts the Store by age (newest first), O by name, as k9s's columns.
func TestStoreSortsByAgeAndName(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("4", "A")
	if got := storeRows(h); got[2] != "default/web-2" || got[59] != "kube-system/coredns-11" {
		t.Fatalf("by age: %v", got)
	}
	h.keys("O")
	if got := storeRows(h); got[2] != "default/web-10" {
		t.Fatalf("by name: %v", got[:4])
	}
}

// Whatever is typed, a filter never panics; what it cannot use it says.
func TestFilterBadInputIsASentence(t *testing.T) {
	for _, q := range []string{"(", "[", "*", "\\", "a{2,1}", "-l", "-l !", "-l a=(b", "-l =x", "-f", "-f (",
		"type:", "key:", "listener:", "type:Nope key:x", "type:relist (", "-x", "ü[", "\x00"} {
		for _, where := range []filterWhere{{}, {labels: true}, {fields: true}} {
			s := parseFilter(q, where)
			var m matcher
			m.setCorpus([]string{"default/web-1", "(Bookmark)", ""})
			_ = m.apply(s)
			_ = s.matchFields("Relist", "k", "l", "i")
			_ = highlightSpec("default/web-1", s, func(x ...string) string { return x[0] })
			if s.err != "" && (strings.HasSuffix(s.err, " ") || s.err[0] == ' ') {
				t.Errorf("%q: error %q is not a clean sentence", q, s.err)
			}
		}
	}
	if s := parseFilter("type:", filterWhere{fields: true}); s.err != "type: needs a value, e.g. type:Relist" {
		t.Fatalf("type: with no value: %q", s.err)
	}
}

// At 80 columns the labels give way before a long key is cut.
func TestStoreAt80KeepsLongKeysWhole(t *testing.T) {
	cfg := fixtureConfig()
	const long = "kube-system/kube-state-metrics-mt6d4pwt9q-zxp82"
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "kube-state-metrics-mt6d4pwt9q-zxp82", Namespace: "kube-system",
		Labels: map[string]string{"app.kubernetes.io/name": "kube-state-metrics", "pod-template-hash": "mt6d4pwt9q"}}}
	cfg.Stores["pods"] = sourcetest.NewStore(1, sourcetest.Item{Key: long, Object: pod})
	h := newHarness(t, newControlledSource(cfg, &sourcetest.Controller{}))
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("4")
	if !strings.Contains(h.screen(), long+" ") {
		t.Fatalf("the key is cut at 80 columns:\n%s", h.screen())
	}
}

// At 80 columns a long query stays readable: the prompt keeps half the
// line and scrolls to the cursor, instead of its last few characters.
func TestFilterInputScrollsAt80Columns(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("4", "/")
	q := "kube-system/coredns-(0|1|2|3-and-then-some-more" // broken: a long refusal follows it
	for _, r := range q {                                  // drawn after each key, as a terminal is
		h.typeText(string(r))
		h.screen()
	}
	line := filterLine(t, h.screen())
	if !strings.Contains(line, "and-then-some-more") || !strings.Contains(line, "(0|1|2|3") {
		t.Fatalf("the prompt shows too little of the query: %q", line)
	}
	h.keys("home")
	line = filterLine(t, h.screen())
	if !strings.Contains(line, "/kube-system/coredns") {
		t.Fatalf("at the start of the query the prompt does not scroll back: %q", line)
	}
}

// filterLine is the screen's "/" prompt line.
func filterLine(t *testing.T, screen string) string {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "/") {
			return l
		}
	}
	t.Fatalf("no filter prompt on screen:\n%s", screen)
	return ""
}
