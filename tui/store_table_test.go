package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/source"
)

// tableFake prints the fixture's pods as kubectl get would and refuses
// secrets, as a kube source does for a user who may not get them. It
// records every ask.
type tableFake struct {
	mu   sync.Mutex
	asks []tableAsk
}

type tableAsk struct {
	informer string
	keys     []string
	wide     bool
}

// fakePodColumns are kubectl's columns for pods, wide ones last.
var fakePodColumns = []source.TableColumn{
	{Name: "READY", Description: "containers ready"}, {Name: "STATUS"}, {Name: "RESTARTS"},
	{Name: "IP", Wide: true}, {Name: "NODE", Wide: true}, {Name: "NOMINATED NODE", Wide: true}, {Name: "READINESS GATES", Wide: true},
}

const fakeSecretsRefusal = "no kubectl columns for secrets: RBAC allows list but not get; grant get on secrets, then come back to it"

func (f *tableFake) Rows(_ context.Context, informer string, keys []string, wide bool) (source.Table, error) {
	f.mu.Lock()
	f.asks = append(f.asks, tableAsk{informer, slices.Clone(keys), wide})
	f.mu.Unlock()
	if informer != "pods" && informer != "configmaps" { // configmaps: the fixture's empty cache, pods' columns for short
		return source.Table{}, errors.New(fakeSecretsRefusal)
	}
	var out source.Table
	for _, c := range fakePodColumns {
		if wide || !c.Wide {
			out.Columns = append(out.Columns, c)
		}
	}
	out.Rows = map[string][]string{}
	for _, k := range keys {
		var n int
		if _, err := fmt.Sscanf(k[strings.LastIndex(k, "-")+1:], "%d", &n); err != nil || k == "default/web-1" {
			continue // not read yet: its cells stay blank
		}
		row := []string{"1/1", "Running", "0", fmt.Sprintf("10.244.%d.%d", n%3, n+2), fmt.Sprintf("node-%d", n%3), "<none>", "<none>"}
		if k == "default/web-3" {
			row[0], row[1], row[2] = "0/1", "CrashLoopBackOff", "7 (2m ago)"
		}
		if !wide {
			row = row[:3]
		}
		out.Rows[k] = row
	}
	return out, nil
}

func (f *tableFake) asked() []tableAsk {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.asks)
}

// tableSource is the fixture with kubectl's columns.
type tableSource struct {
	*controlledSource
	tables *tableFake
}

func (s *tableSource) Controls() source.Controls {
	c := s.controlledSource.Controls()
	c.Table = s.tables
	return c
}

func tableFixture(t *testing.T, w, ht int) (*harness, *tableFake) {
	t.Helper()
	f := &tableFake{}
	h := newHarness(t, &tableSource{controlledSource: newFixtureSource(), tables: f})
	h.size(w, ht)
	h.frames(fixtureFrames)
	return h, f
}

// pageKeys are the keys of the Store's visible page.
func pageKeys(h *harness) []string {
	sv := h.m.views[viewStore].(*storeView)
	lo, hi := sv.scroll.window()
	var out []string
	for r := lo; r < hi; r++ {
		out = append(out, sv.keys[sv.row(r)])
	}
	return out
}

func TestGoldenStoreTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"store-table", []string{"4"}},
		{"store-table-refused", []string{":", "s", "e", "c", "enter", "4"}},
	} {
		for _, sz := range goldenSizes {
			name := fmt.Sprintf("%s-%dx%d", tc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				h, _ := tableFixture(t, sz[0], sz[1])
				h.keys(tc.keys...)
				got := h.screen()
				assertFits(t, got, sz[0], sz[1])
				golden(t, name, got)
			})
		}
	}
}

// kubectl's columns show for the rows known; a row not read yet is blank,
// never a zero; wide columns and labels only on a wide terminal.
func TestStoreTableShowsKubectlsColumns(t *testing.T) {
	h, _ := tableFixture(t, 80, 24)
	h.keys("4")
	screen := h.screen()
	header := regexpLine(t, screen, "KEY")
	for _, col := range []string{"READY", "STATUS", "RESTARTS", "AGE"} {
		if !strings.Contains(header, col) {
			t.Errorf("header %q lacks %s", header, col)
		}
	}
	if strings.Contains(header, "LABELS") || strings.Contains(header, "NODE") {
		t.Errorf("header %q: labels and wide columns belong to wide terminals", header)
	}
	if line := regexpLine(t, screen, "default/web-1 "); !slices.Equal(strings.Fields(line), []string{"default/web-1", "14m"}) {
		t.Errorf("a row not read yet shows cells: %q", line)
	}

	h, f := tableFixture(t, 160, 48)
	h.keys("4")
	header = regexpLine(t, h.screen(), "KEY")
	for _, col := range []string{"READY", "IP", "NODE", "NOMINATED NODE", "LABELS", "AGE"} {
		if !strings.Contains(header, col) {
			t.Errorf("wide header %q lacks %s", header, col)
		}
	}
	if line := regexpLine(t, h.screen(), "default/web-3 "); !strings.Contains(line, "CrashLoopBackOff") || !strings.Contains(line, "7 (2m ago)") {
		t.Errorf("web-3's row: %q", line)
	}
	if a := f.asked(); len(a) != 1 || !a[0].wide {
		t.Errorf("asks at 160 columns: %+v, want one wide", a)
	}
}

// regexpLine is the first line of screen holding s.
func regexpLine(t *testing.T, screen, s string) string {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	t.Fatalf("no line holds %q:\n%s", s, screen)
	return ""
}

// The view asks for the visible page only, again only when the page
// moves, and never while drawing.
func TestStoreTableAsksForTheVisiblePage(t *testing.T) {
	h, f := tableFixture(t, 80, 24)
	h.keys("4")
	a := f.asked()
	if len(a) != 1 || a[0].informer != "pods" || a[0].wide || !slices.Equal(a[0].keys, pageKeys(h)) {
		t.Fatalf("asks %+v, want one for the page %q", a, pageKeys(h))
	}
	if n := len(a[0].keys); n == 0 || n >= 60 {
		t.Fatalf("asked for %d keys of 60: want the page only", n)
	}
	h.keys("j", "j")
	for range 20 {
		_ = h.m.View()
	}
	if n := len(f.asked()); n != 1 {
		t.Fatalf("%d asks after moving within the page and drawing, want 1", n)
	}
	h.keys("pgdown")
	if a := f.asked(); len(a) != 2 || !slices.Equal(a[1].keys, pageKeys(h)) || a[1].keys[0] == a[0].keys[0] {
		t.Fatalf("after pgdown: %+v, want an ask for the next page %q", a, pageKeys(h))
	}
	h.keys("/", "c", "o", "r", "e")
	a = f.asked()
	if last := a[len(a)-1]; len(last.keys) != 60 {
		t.Fatalf("after filtering: %+v, want every row, so the filter searches every cell", last)
	}
}

// The filter searches every visible cell, the server's too: /CrashLoop
// finds the crashing pods, though their keys and labels do not say it.
func TestStoreFilterSearchesEveryCell(t *testing.T) {
	h, _ := tableFixture(t, 160, 48)
	h.keys("4", "/")
	h.typeText("crashloop")
	rows := storeRows(h)
	if len(rows) == 0 {
		t.Fatalf("/crashloop finds nothing:\n%s", h.screen())
	}
	for _, r := range rows {
		if line := regexpLine(t, h.screen(), r+" "); !strings.Contains(line, "CrashLoopBackOff") {
			t.Fatalf("/crashloop kept %q: %q", r, line)
		}
	}
	h.keys("esc", "/")
	h.typeText("^10.244.1.")
	if rows := storeRows(h); len(rows) == 0 || len(rows) > 25 {
		t.Fatalf("an anchored pattern over the IP column kept %v", rows)
	}
}

// One ask at a time: pages scrolled past while it is in flight are never
// asked for; its answer asks for the page shown by then.
func TestStoreTableOneAskInFlight(t *testing.T) {
	h, f := tableFixture(t, 80, 24)
	h.hold = func(m tea.Msg) bool { _, ok := m.(storeRowsMsg); return ok }
	h.keys("4")
	if len(f.asked()) != 1 || len(h.held) != 1 {
		t.Fatalf("%d asks, %d answers in flight; want 1 and 1", len(f.asked()), len(h.held))
	}
	h.keys("pgdown", "pgdown")
	if n := len(f.asked()); n != 1 {
		t.Fatalf("%d asks with one in flight, want 1", n)
	}
	h.release()
	a := f.asked()
	if len(a) != 2 || !slices.Equal(a[1].keys, pageKeys(h)) {
		t.Fatalf("after the answer: %+v, want one more ask, for the page shown %q", a, pageKeys(h))
	}
	h.release()
	if n := len(f.asked()); n != 2 {
		t.Fatalf("%d asks once the page is answered, want 2", n)
	}
	if line := regexpLine(t, h.screen(), pageKeys(h)[0]+" "); !strings.Contains(line, "Running") {
		t.Errorf("the page's first row after the answers: %q", line)
	}

	// An answer for an informer left behind is dropped; the new one asks.
	h.keys("pgdown")
	h.keys(":", "s", "e", "c", "enter")
	h.release()
	if !strings.Contains(h.screen(), "no kubectl columns for secrets") {
		t.Fatalf("secrets without their reason:\n%s", h.screen())
	}
	if a := f.asked(); a[len(a)-1].informer != "secrets" {
		t.Fatalf("last ask %+v, want one for secrets", a[len(a)-1])
	}
}

// The help says what the columns are and when the wide ones show, on a
// source that prints them only.
func TestStoreTableHelp(t *testing.T) {
	h, _ := tableFixture(t, 160, 48)
	if got := strings.Join(strings.Fields(helpText(h)), " "); !strings.Contains(got, "Store shows the columns kubectl get prints") || !strings.Contains(got, "at 140 columns or wider") {
		t.Errorf("the help does not explain the Store's columns:\n%s", helpText(h))
	}
	if got := helpText(fixture(t, 160, 48)); strings.Contains(got, "kubectl get prints") {
		t.Errorf("a source without tables explains them:\n%s", got)
	}
}

// AGE and LABELS read as kubectl get prints them: apimachinery's
// HumanDuration ("70s", "6m", "12m", never "1m10s" or "6m0s"), and
// "<none>" for an object without labels.
func TestStoreCellsAreKubectls(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for ago, want := range map[time.Duration]string{
		70 * time.Second: "70s", 6 * time.Minute: "6m", 12*time.Minute + 38*time.Second: "12m",
		7*time.Minute + 9*time.Second: "7m9s", 3*time.Hour + 5*time.Minute: "3h5m", 50 * time.Hour: "2d2h",
	} {
		if got := ageCell(now, now.Add(-ago)); got != want {
			t.Errorf("age %v reads %q, kubectl prints %q", ago, got, want)
		}
	}
	if got := labelCell(""); got != "<none>" {
		t.Errorf("no labels read %q, kubectl prints <none>", got)
	}
	if got := labelCell("app=web"); got != "app=web" {
		t.Errorf("labels read %q", got)
	}
}

// Shift and a column's initial sorts by that column, k9s-style; again
// reverses it. Rows not read yet go last either way; numbers compare by
// value.
func TestStoreSortsByAnyColumn(t *testing.T) {
	h, _ := tableFixture(t, 160, 48)
	h.keys("4", "S")
	rows := storeRows(h)
	if rows[0] != "default/web-3" || rows[len(rows)-1] != "default/web-1" {
		t.Fatalf("by STATUS: CrashLoopBackOff first, the unread row last: %v", rows)
	}
	if !strings.Contains(h.screen(), "by STATUS ↑") {
		t.Errorf("the breadcrumb does not say the sort:\n%s", h.screen())
	}
	h.keys("S")
	rows = storeRows(h)
	if rows[len(rows)-2] != "default/web-3" || rows[len(rows)-1] != "default/web-1" || !strings.Contains(h.screen(), "by STATUS ↓") {
		t.Fatalf("S again: CrashLoopBackOff last of the read rows: %v", rows)
	}
	h.keys("I") // IP: 10.244.0.2 < 10.244.0.5 < 10.244.0.14 by value
	rows = storeRows(h)
	if rows[0] != "default/web-0" || slices.Index(rows, "default/web-3") > slices.Index(rows, "default/web-12") {
		t.Fatalf("by IP (10.244.0.5 before 10.244.0.14): %v", rows)
	}
	h.keys("O")
	if rows := storeRows(h); rows[0] != "default/web-0" || rows[1] != "default/web-1" || rows[2] != "default/web-10" {
		t.Fatalf("O: key order again: %v", rows[:3])
	}
	h.keys("O")
	if rows := storeRows(h); rows[0] != "kube-system/coredns-9" {
		t.Fatalf("O again: keys descending: %v", rows[:3])
	}
}

func TestNaturalCompare(t *testing.T) {
	for _, c := range [][2]string{{"web-2", "web-10"}, {"2/3", "10/10"}, {"9 (1m ago)", "10"}, {"10.244.0.5", "10.244.0.14"}, {"a", "b"}, {"", "a"}, {"007", "8"}} {
		if naturalCompare(c[0], c[1]) >= 0 || naturalCompare(c[1], c[0]) <= 0 {
			t.Errorf("%q should sort before %q", c[0], c[1])
		}
	}
}

// An empty cache still shows the server's columns: the view asks for
// them once with no key, and the header is kubectl's.
func TestStoreTableColumnsForAnEmptyCache(t *testing.T) {
	h, f := tableFixture(t, 80, 24)
	h.keys(":")
	h.typeText("configmaps")
	h.keys("enter", "4")
	var empty int
	for _, a := range f.asked() {
		if a.informer == "configmaps" && len(a.keys) == 0 {
			empty++
		}
	}
	if empty != 1 {
		t.Fatalf("%d asks with no key for the empty configmaps, want 1: %+v", empty, f.asked())
	}
	if header := regexpLine(t, h.screen(), "KEY"); !strings.Contains(header, "READY") {
		t.Errorf("the empty cache's header drops the server's columns: %q", header)
	}
	for range 5 {
		h.frames(storeReloadTicks)
	}
	n := 0
	for _, a := range f.asked() {
		if a.informer == "configmaps" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the empty cache's columns were asked for %d times", n)
	}
}

// Rows read before the filter was typed are searched too.
func TestStoreFilterSearchesRowsReadBefore(t *testing.T) {
	h, _ := tableFixture(t, 80, 24)
	h.keys("4", "/")
	h.typeText("crashloop")
	if rows := storeRows(h); len(rows) != 1 || rows[0] != "default/web-3" {
		t.Fatalf("/crashloop after the page was read: %v", rows)
	}
}

// A sort is the informer's: another informer starts in key order.
func TestStoreSortEndsWithTheInformer(t *testing.T) {
	h, _ := tableFixture(t, 160, 48)
	h.keys("4", "S")
	h.keys(":")
	h.typeText("secrets")
	h.keys("enter")
	if sv := h.m.views[viewStore].(*storeView); sv.sort.on || strings.Contains(h.screen(), "by STATUS") {
		t.Fatalf("the pods' sort by STATUS outlived them:\n%s", h.screen())
	}
}
