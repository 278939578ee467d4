package tui

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"

	tea "charm.land/bubbletea/v2"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source/sourcetest"
)

func TestViewSwitchingByNumberAndTab(t *testing.T) {
	h := fixture(t, 80, 24)
	if h.m.active != viewPipeline {
		t.Fatalf("starts on view %d, want the pipeline", h.m.active)
	}
	for i, k := range []string{"2", "3", "4", "5", "1"} {
		h.keys(k)
		want := []viewID{viewQueue, viewListeners, viewStore, viewEvents, viewPipeline}[i]
		if h.m.active != want {
			t.Fatalf("after %q active view is %d, want %d", k, h.m.active, want)
		}
	}
	var seen []viewID
	for i := 0; i < 6; i++ {
		h.keys("tab")
		seen = append(seen, h.m.active)
	}
	if want := []viewID{1, 2, 3, 4, 0, 1}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("tab cycles through %v, want %v", seen, want)
	}
	h.keys("shift+tab", "shift+tab")
	if h.m.active != viewPipeline+4 {
		t.Fatalf("shift+tab twice from queue lands on %d, want events (4)", h.m.active)
	}
	if !strings.Contains(h.screen(), " 5 Events ") {
		t.Fatalf("the tab bar does not name the active view:\n%s", h.screen())
	}
}

func TestQuitKeys(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("q")
	if !h.quit {
		t.Fatal("q did not quit")
	}

	// While typing a filter, q is text and only ctrl+c quits.
	h = fixture(t, 80, 24)
	h.keys("4", "/", "q")
	if h.quit {
		t.Fatal("q typed into the filter quit the program")
	}
	if got := h.m.views[viewStore].(*storeView).filter.query(); got != "q" {
		t.Fatalf("filter holds %q, want \"q\"", got)
	}
	h.keys("ctrl+c")
	if !h.quit {
		t.Fatal("ctrl+c while typing did not quit")
	}
}

func TestQueueFilterAndDeltaDetail(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("2", "/", "c", "o", "r", "e")
	qv := h.m.views[viewQueue].(*queueView)
	// Fixture rows j with j%4 == 1 hold kube-system/coredns-(j%3).
	want := []int{1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41}
	if !reflect.DeepEqual(qv.rows, want) {
		t.Fatalf("filtered rows %v, want %v", qv.rows, want)
	}
	if !qv.capturing() {
		t.Fatal("the filter should keep the keyboard while editing")
	}
	h.keys("enter", "j", "enter")
	if qv.detail == nil || qv.detail.key != "kube-system/coredns-2" {
		t.Fatalf("enter opened %+v, want kube-system/coredns-2", qv.detail)
	}
	// coredns-2 sits at rows 6, 18, 30, 42 with Deleted, Added, Updated,
	// Updated, and is cached: the effects follow HandleDeltas in order.
	wantLines := []string{
		"     6  Deleted      1.4s  Delete, then OnDelete to every listener",
		"    18  Added       990ms  Add, then OnAdd",
		"    30  Updated     630ms  Update, then OnUpdate",
		"    42  Updated     270ms  Update, then OnUpdate",
	}
	assertLinesInOrder(t, h.screen(), wantLines)
	h.keys("esc")
	if qv.detail != nil || qv.filter.query() != "core" {
		t.Fatalf("esc should close the detail and keep the filter; detail %+v filter %q", qv.detail, qv.filter.query())
	}
	h.keys("esc")
	if qv.filter.query() != "" || len(qv.rows) != 42 {
		t.Fatalf("second esc should clear the filter; query %q, %d rows", qv.filter.query(), len(qv.rows))
	}
}

func TestQueueSaysWhyItShowsNoRows(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("2", "/", "z", "z", "enter")
	if s := h.screen(); !strings.Contains(s, "no queued key matches the filter") {
		t.Fatalf("a filter matching none of 42 rows:\n%s", s)
	}
	h.keys(":", "c", "o", "n", "f", "enter", "2", "/", "z", "enter")
	if s := h.screen(); !strings.Contains(s, "the queue is empty") || strings.Contains(s, "matches") {
		t.Fatalf("an empty queue is empty whatever the filter:\n%s", s)
	}
}

func TestDeltaFIFODetailShowsCoalescedDeltas(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys(":", "s", "e", "c", "enter", "2")
	want := []string{"1", "kube-system/bootstrap-token-abcdef", "3", "Added", "Updated×2", "4.2s"}
	if got := rowFields(h.screen(), "bootstrap-token"); !reflect.DeepEqual(got, want) {
		t.Fatalf("the DeltaFIFO row reads %q, want %q", got, want)
	}
	h.keys("enter")
	// Added on a cached key is an Update, as in client-go's processDeltas.
	assertLinesInOrder(t, h.screen(), []string{
		"key kube-system/bootstrap-token-abcdef · DeltaFIFO",
		"now in the cache at resourceVersion 9100",
		"     1  Added        4.2s  Update, then OnUpdate",
		"     1  Updated      4.2s  Update, then OnUpdate",
		"     1  Updated      4.2s  Update, then OnUpdate",
		"DeltaFIFO keeps one queue position per key: these deltas leave together, oldest…",
	})
}

func TestListenersStalledFirstAndStallKey(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("3")
	lv := h.m.views[viewListeners].(*listenersView)
	var order []string
	for _, r := range lv.rows {
		order = append(order, r.stats.Name)
	}
	if want := []string{"audit", "fast", "slow", "late"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("listener order %v, want %v (stalled first, then source order)", order, want)
	}
	if h.m.c.data.selectedListener != "audit" {
		t.Fatalf("selected %q, want audit", h.m.c.data.selectedListener)
	}
	h.keys("j", "s")
	if got := h.ctl.Calls(); !reflect.DeepEqual(got, []string{"ToggleStall(pods,fast)"}) {
		t.Fatalf("controls called %v", got)
	}
	if !strings.Contains(h.screen(), "listener fast stalled") {
		t.Fatalf("status line does not confirm the stall:\n%s", h.screen())
	}
	h.keys("s")
	if !strings.Contains(h.screen(), "listener fast resumed") {
		t.Fatalf("status line does not confirm the resume:\n%s", h.screen())
	}
	// The selection survives a new frame that re-ranks the rows.
	h.frames(1)
	if h.m.c.data.selectedListener != "fast" || lv.rows[lv.scroll.cursor].stats.Name != "fast" {
		t.Fatalf("cursor moved to %q after a refresh", lv.rows[lv.scroll.cursor].stats.Name)
	}
}

func TestStallWithoutSelectionExplains(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("s")
	if n := len(h.ctl.Calls()); n != 0 {
		t.Fatalf("stall without a selection called the controls %d times", n)
	}
	if !strings.Contains(h.screen(), "select a listener first: 3 opens the Listeners view") {
		t.Fatalf("no explanation in the status line:\n%s", h.screen())
	}
}

func TestStepPausesThenNarrates(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("n")
	if got, want := h.ctl.Calls(), []string{"SetPaused(true)", "Step(pods)"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("first step called %v, want %v", got, want)
	}
	if h.m.narration == nil {
		t.Fatal("no narration panel after a step")
	}
	assertLinesInOrder(t, h.screen(), []string{
		"│ step 1 · pods · single step: one item popped",
		"│ processing paused so items can be stepped one at a time",
		"│ popped   default/web-3 with Updated",
		"│ store    Update default/web-3",
		"│ notified fast  ← OnUpdate default/web-3",
		"│          slow  ← OnUpdate default/web-3",
		"│          audit ← OnUpdate default/web-3",
		"│          late  ← OnAdd default/web-3 (isInInitialList)",
	})
	if !strings.Contains(h.screen(), "⏸ you paused") {
		t.Fatal("the header does not show that the user paused processing")
	}
	bodyWithPanel := h.m.c.height

	h.keys("n")
	if got := h.ctl.Calls(); !reflect.DeepEqual(got[2:], []string{"Step(pods)"}) {
		t.Fatalf("second step called %v, want only Step(pods)", got[2:])
	}
	if !strings.Contains(h.screen(), "│ step 2 · pods") || strings.Contains(h.screen(), "processing paused so") {
		t.Fatalf("second step narration wrong:\n%s", h.screen())
	}

	h.keys("esc")
	if h.m.narration != nil || h.m.c.height <= bodyWithPanel {
		t.Fatalf("esc did not close the panel and give its rows back (body %d)", h.m.c.height)
	}
	h.keys("space")
	if got := h.ctl.Calls(); got[len(got)-1] != "SetPaused(false)" {
		t.Fatalf("space while paused called %v", got)
	}
	if !strings.Contains(h.screen(), "processing resumed") || strings.Contains(h.screen(), "PAUSED") {
		t.Fatalf("resume not reflected:\n%s", h.screen())
	}
}

func TestStepEmptyQueueAndFailure(t *testing.T) {
	src := newFixtureSource()
	src.ctl.SetStepResult(source.StepResult{Informer: "pods", Empty: true})
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("n")
	if !strings.Contains(h.screen(), "the queue was empty: nothing was popped") {
		t.Fatalf("empty step not narrated:\n%s", h.screen())
	}
	src.ctl.SetFailure(errors.New("engine stopped"))
	h.keys("n")
	if !strings.Contains(h.screen(), "step failed: engine stopped") {
		t.Fatalf("failed step not narrated:\n%s", h.screen())
	}
}

// A popped bookmark notifies nobody because it carries no object, not
// because of a resync rule; a sync that reaches nobody says why.
func TestStepNarratesWhyNoListenerWasNotified(t *testing.T) {
	src := newFixtureSource()
	src.ctl.SetStepResult(source.StepResult{Informer: "pods", Key: "(bookmark 620)", Deltas: []cache.DeltaType{cache.Bookmark}})
	h := newHarness(t, src)
	h.size(100, 30)
	h.frames(fixtureFrames)
	h.keys("n")
	assertLinesInOrder(t, h.screen(), []string{
		"│ popped   (bookmark 620) with Bookmark",
		"│ store    no object changes; the store records the bookmark's resourceVersion",
		"│ notified no listener (a bookmark carries only a resourceVersion)",
	})
	src.ctl.SetStepResult(source.StepResult{Informer: "pods", Key: "default/web-3", Deltas: []cache.DeltaType{cache.Sync},
		Store: []string{"Update default/web-3"}})
	h.keys("n")
	assertLinesInOrder(t, h.screen(), []string{
		"│ store    Update default/web-3",
		"│ notified no listener (a sync reaches only listeners whose resync is due)",
	})
	// A hot DeltaFIFO key leaves with hundreds of deltas, counted by run.
	hot := append([]cache.DeltaType{cache.Added}, slices.Repeat([]cache.DeltaType{cache.Updated}, 333)...)
	var notes []source.StepNotification
	for range hot {
		notes = append(notes, source.StepNotification{Listener: "fast", Callback: "OnUpdate", Key: "default/web-3"})
	}
	src.ctl.SetStepResult(source.StepResult{Informer: "pods", Key: "default/web-3", Deltas: hot, Notifications: notes})
	h.keys("n")
	// One listener notified once per delta reads as one line with a count.
	assertLinesInOrder(t, h.screen(), []string{
		"│ popped   default/web-3 with Added Updated×333 (334 deltas for one key, applied in order)",
		"│ notified fast ← OnUpdate default/web-3 ×334",
	})
	if strings.Count(h.screen(), "fast ←") != 1 {
		t.Fatalf("334 identical notifications take more than one line:\n%s", h.screen())
	}
}

func TestFaultKeysCallControlsInOrder(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("w", "x", "r", "+", "+", "-")
	want := []string{"DropWatch", "ExpireHistory", "Resync(pods)", "AdjustRate(1)", "AdjustRate(1)", "AdjustRate(-1)"}
	if got := h.ctl.Calls(); !reflect.DeepEqual(got, want) {
		t.Fatalf("controls called %v, want %v", got, want)
	}
	if !strings.Contains(h.screen(), "workload: 10 changes/s") {
		t.Fatalf("status does not show the new rate:\n%s", h.screen())
	}
	h.ctl.SetFailure(errors.New("demo cluster busy"))
	h.keys("w")
	if !strings.Contains(h.screen(), "demo cluster busy") {
		t.Fatalf("a failing control is not reported:\n%s", h.screen())
	}
}

func TestReadOnlySourceRefusesControls(t *testing.T) {
	cfg := fixtureConfig()
	cfg.Kind, cfg.Title = "kube", "prod"
	h := newHarness(t, sourcetest.New(cfg))
	h.size(100, 30)
	h.frames(fixtureFrames)
	if strings.Contains(h.screen(), "space pause") {
		t.Fatalf("footer offers controls on a read-only source:\n%s", h.screen())
	}
	if !strings.Contains(h.screen(), "kube: prod │ informers") {
		t.Fatalf("header does not name the source:\n%s", h.screen())
	}
	h.keys("n")
	if h.m.narration != nil {
		t.Fatal("a read-only source opened a narration")
	}
	if !strings.Contains(h.screen(), "n does nothing on kube: prod: pause, step, batch step and resync need informers running inside") {
		t.Fatalf("no explanation for a control key on a read-only source:\n%s", h.screen())
	}
}

func TestSwitcherFiltersAndSwitches(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys(":", "z", "z", "enter")
	if h.m.switcher != nil || h.m.c.data.current != "pods" {
		t.Fatalf("no match + enter should close and keep pods; current %q", h.m.c.data.current)
	}
	h.keys(":", "s", "e", "c")
	if got := len(h.m.switcher.matches); got != 1 {
		t.Fatalf("\"sec\" matches %d informers, want 1", got)
	}
	h.keys("enter")
	if h.m.c.data.current != "secrets" {
		t.Fatalf("current informer %q, want secrets", h.m.c.data.current)
	}
	if !strings.Contains(h.screen(), "informtop · secrets(all)[5]") {
		t.Fatalf("header does not show the new informer:\n%s", h.screen())
	}
	// Arrows move in the list while letters type; esc cancels.
	h.keys(":", "down", "j")
	if h.m.switcher.cursor != 0 || h.m.switcher.input.Value() != "j" {
		t.Fatalf("after down and j: cursor %d, input %q", h.m.switcher.cursor, h.m.switcher.input.Value())
	}
	h.keys("esc")
	if h.m.switcher != nil || h.m.c.data.current != "secrets" {
		t.Fatal("esc should close the switcher without switching")
	}
}

func TestStoreFilterKeepsOrderAndSelectionAcrossReloads(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("4", "/", "-", "f", "space", "w", "e", "b", "-", "1", "enter")
	sv := h.m.views[viewStore].(*storeView)
	var got []string
	for r := 0; r < sv.scroll.n; r++ {
		got = append(got, strings.TrimPrefix(sv.keys[sv.row(r)], "default/"))
	}
	want := []string{"web-1", "web-10", "web-11", "web-12", "web-13", "web-14", "web-15", "web-16",
		"web-17", "web-18", "web-19", "web-21", "web-31", "web-41"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("filter \"-f web-1\" kept %v, want %v", got, want)
	}
	h.keys("G")
	if sv.selectedKey() != "default/web-41" {
		t.Fatalf("G selected %q", sv.selectedKey())
	}

	// A new generation without web-10 arrives; the list is re-read within
	// storeReloadTicks and the cursor stays on the same object.
	next := podStore().Without("default/web-10")
	src.SetStore("pods", next)
	h.frames(storeReloadTicks)
	if sv.gen != next.Generation() || sv.scroll.n != len(want)-1 {
		t.Fatalf("after reload: generation %d (want %d), %d rows (want %d)", sv.gen, next.Generation(), sv.scroll.n, len(want)-1)
	}
	if sv.selectedKey() != "default/web-41" {
		t.Fatalf("cursor moved to %q after the reload", sv.selectedKey())
	}
}

// podsChangeWithout replaces the fixture's pods store by a newer
// generation without key.
func podsChangeWithout(src *controlledSource, key string) {
	src.SetStore("pods", podStore().Without(key))
}

// A switch while the old informer's keys are still being read shows the
// new informer's keys, never the old ones, and the late answer is dropped.
func TestStoreSwitchWhileAReadIsInFlight(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("4")
	sv := h.m.views[viewStore].(*storeView)
	podsChangeWithout(src, "default/web-10")
	var inFlight tea.Cmd
	for i := 0; i <= storeReloadTicks && !sv.loading; i++ {
		_, inFlight = h.m.Update(fetchData(src, h.m.c.data.cursor, t0))
	}
	if !sv.loading {
		t.Fatal("the changed pods store was never re-read")
	}
	check := func(when string) {
		t.Helper()
		screen := h.screen()
		if strings.Contains(screen, "web-") || !strings.Contains(screen, "default/db-creds") || sv.scroll.n != 6 {
			t.Fatalf("%s: the store view shows %d rows:\n%s", when, sv.scroll.n, screen)
		}
	}
	h.keys(":", "s", "e", "c", "enter")
	check("after the switch")
	for _, msg := range h.run(inFlight) {
		h.send(msg)
	}
	check("after the pods answer arrived")
}

// The index browser follows the store: a key deleted from the cache leaves
// the list within storeReloadTicks and the cursor stays on its item.
func TestIndexBrowserFollowsTheStore(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("4", "i", "enter", "j", "enter", "j", "j")
	sv := h.m.views[viewStore].(*storeView)
	if got := sv.idx.items[sv.idx.scroll.cursor]; got != "kube-system/coredns-10" {
		t.Fatalf("cursor on %q, want kube-system/coredns-10", got)
	}
	podsChangeWithout(src, "kube-system/coredns-0")
	h.frames(storeReloadTicks)
	if len(sv.idx.items) != 11 || slices.Contains(sv.idx.items, "kube-system/coredns-0") {
		t.Fatalf("after the delete the browser lists %v", sv.idx.items)
	}
	if got := sv.idx.items[sv.idx.scroll.cursor]; got != "kube-system/coredns-10" {
		t.Fatalf("cursor moved to %q", got)
	}
}

func TestStoreObjectAndIndexBrowser(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("4", "i")
	sv := h.m.views[viewStore].(*storeView)
	if !reflect.DeepEqual(sv.idx.items, []string{"namespace", "node"}) {
		t.Fatalf("index names %v", sv.idx.items)
	}
	// Each index with its number of values, whole, at the right edge.
	if got := rowFields(h.screen(), "namespace"); !reflect.DeepEqual(got, []string{"namespace", "2", "values"}) ||
		!strings.HasSuffix(strings.TrimRight(strings.Split(h.screen(), "\n")[5], " "), "3 values") {
		t.Fatalf("index name rows:\n%s", h.screen())
	}
	h.keys("enter")
	if !reflect.DeepEqual(sv.idx.items, []string{"default", "kube-system"}) {
		t.Fatalf("namespace values %v", sv.idx.items)
	}
	h.keys("j", "enter")
	if len(sv.idx.items) != 12 || sv.idx.items[0] != "kube-system/coredns-0" {
		t.Fatalf("kube-system keys %v", sv.idx.items)
	}
	h.keys("enter")
	if sv.mode != storeObject || sv.obj.key != "kube-system/coredns-0" {
		t.Fatalf("enter on a key should open it; mode %d", sv.mode)
	}
	assertLinesInOrder(t, h.screen(), []string{
		"kube-system/coredns-0 · Pod · RV 48048",
		"index entries:",
		"  namespace = kube-system",
		"  node = node-0",
	})
	// esc walks back the way it came: object, keys, values (cursor kept), names, list.
	h.keys("esc")
	if sv.mode != storeIndexes || sv.idx.level != 2 {
		t.Fatalf("esc from the object should return to the keys; mode %d level %d", sv.mode, sv.idx.level)
	}
	h.keys("esc")
	if sv.idx.level != 1 || sv.idx.scroll.cursor != 1 {
		t.Fatalf("back at values: level %d cursor %d, want 1 and 1", sv.idx.level, sv.idx.scroll.cursor)
	}
	h.keys("esc", "esc")
	if sv.mode != storeList {
		t.Fatalf("esc from the index names should return to the list; mode %d", sv.mode)
	}
}

func TestEventsTypeAndInformerFilters(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("5")
	ev := h.m.views[viewEvents].(*eventsView)
	types := func() []string {
		var out []string
		for _, i := range ev.rows {
			e := h.m.c.data.events.at(i)
			out = append(out, e.Type.String()+"/"+e.Informer)
		}
		return out
	}
	if got := len(ev.rows); got != 17 {
		t.Fatalf("pods view shows %d events, want 17 (pods and global ones)", got)
	}
	h.keys("t")
	want := []string{"ListPage/pods", "ListPage/pods", "ListDone/pods", "WatchOpen/pods", "WatchEvent/pods",
		"Bookmark/pods", "WatchClose/pods", "Relist/pods"}
	if got := types(); !reflect.DeepEqual(got, want) {
		t.Fatalf("reflector events %v, want %v", got, want)
	}
	h.keys("t", "t", "t", "t", "a")
	want = []string{"HandlerPanic/pods", "WatchError/configmaps", "Relist/pods"}
	if got := types(); !reflect.DeepEqual(got, want) {
		t.Fatalf("problems across informers %v, want %v", got, want)
	}
	h.keys("/", "4", "0", "3")
	if got := types(); !reflect.DeepEqual(got, []string{"WatchError/configmaps"}) {
		t.Fatalf("search \"403\" kept %v", got)
	}
}

func TestEventsFollowTheTail(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("5")
	ev := h.m.views[viewEvents].(*eventsView)
	addEvent := func(seq uint64) {
		src.AddEvents(source.Event{Seq: seq, Time: t0, Type: source.EventPop, Informer: "pods", Key: fmt.Sprint("k", seq)})
	}
	addEvent(21)
	h.frames(1)
	if !ev.scroll.atBottom() || h.m.c.data.events.at(ev.rows[ev.scroll.cursor]).Seq != 21 {
		t.Fatal("the cursor on the last row did not follow the new event")
	}
	h.keys("k")
	addEvent(22)
	h.frames(1)
	if got := h.m.c.data.events.at(ev.rows[ev.scroll.cursor]).Seq; got != 20 {
		t.Fatalf("after moving up the cursor should stay on event 20, is on %d", got)
	}
}

// Once the log is full every new event shifts the rows; a cursor off the
// tail stays on the event it was on, and on that event when a type
// filter hides rows above it.
func TestEventsCursorStaysOnItsEventAsTheLogTurns(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("5", "a", "k")
	ev := h.m.views[viewEvents].(*eventsView)
	selected := func() uint64 { return h.m.c.data.events.at(ev.rows[ev.scroll.cursor]).Seq }
	if got := selected(); got != 19 {
		t.Fatalf("k from the tail selected event %d, want 19", got)
	}
	for seq := uint64(21); seq < 21+eventLogSize; seq++ {
		src.AddEvents(source.Event{Seq: seq, Time: t0.Add(7 * time.Second), Type: source.EventPop, Informer: "pods", Key: "k"})
	}
	h.frames(2) // more than one fetch holds
	// The per-item ring turned: events 6–12 of the fixture are gone, its
	// lifecycle events stay.
	if first, second := h.m.c.data.events.at(4).Seq, h.m.c.data.events.at(5).Seq; first != 5 || second != 13 {
		t.Fatalf("the log holds events %d then %d, want 5 then 13", first, second)
	}
	if got := selected(); got != 19 {
		t.Fatalf("after the log turned the cursor is on event %d, want still 19", got)
	}
	h.keys("t") // reflector events: 19, the relist, is one of them
	if got := selected(); got != 19 {
		t.Fatalf("after the type filter the cursor is on event %d, want 19", got)
	}
}

// The engine's per-item events carry the object, not its key (the key is
// built only when read); the log must show and search that key.
func TestEventsShowTheKeyOfObjectEvents(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(fixtureFrames)
	src.AddEvents(source.Event{Seq: 21, Time: t0.Add(6 * time.Second), Type: source.EventWatchEvent,
		Informer: "pods", Detail: "MODIFIED", Key: "default/web-77"})
	h.frames(1)
	h.keys("5")
	if e := h.m.c.data.events.at(h.m.c.data.events.len() - 1); e.Key != "default/web-77" {
		t.Fatalf("the log holds key %q, want default/web-77", e.Key)
	}
	if got := rowFields(h.screen(), "web-77"); !reflect.DeepEqual(got, []string{"03:04:11.000", "WatchEvent", "default/web-77", "MODIFIED"}) {
		t.Fatalf("the watch event row reads %q:\n%s", got, h.screen())
	}
	h.keys("/", "w", "e", "b", "-", "7", "7")
	ev := h.m.views[viewEvents].(*eventsView)
	if len(ev.rows) != 1 || h.m.c.data.events.at(ev.rows[0]).Seq != 21 {
		t.Fatalf("searching web77 kept rows %v, want only event 21", ev.rows)
	}
}

// A panic's text spans lines and holds tabs; in a table it stays on its
// row, and the rows after it stay where they belong.
func TestMultiLineTextStaysOnItsRow(t *testing.T) {
	cfg := fixtureConfig()
	panicText := "boom\n\ngoroutine 7 [running]:\n\tmain.handler()"
	cfg.Events = append(cfg.Events, source.Event{Seq: 21, Time: t0.Add(6 * time.Second), Type: source.EventHandlerPanic,
		Informer: "pods", Listener: "audit", Detail: panicText},
		source.Event{Seq: 22, Time: t0.Add(7 * time.Second), Type: source.EventControl, Detail: "resume"})
	for i := range cfg.Frames {
		cfg.Frames[i][0].Listeners[2].LastPanic = panicText
	}
	h := newHarness(t, newControlledSource(cfg, &sourcetest.Controller{}))
	h.size(130, 30)
	h.frames(fixtureFrames)
	h.keys("5", "G")
	lines := strings.Split(h.screen(), "\n")
	for i, l := range lines {
		if strings.Contains(l, "HandlerPanic  audit") && strings.Contains(l, "boom goroutine 7 [running]: main.handler()") {
			if next := lines[i+1]; !strings.HasPrefix(next, "03:04:12.000 Control") {
				t.Fatalf("the row after the panic reads %q:\n%s", next, h.screen())
			}
			h.keys("3", "enter")
			assertLinesInOrder(t, h.screen(), []string{
				"panics         2  last: boom goroutine 7 [running]: main.handler()",
				"resync         requested never · effective never",
			})
			return
		}
	}
	t.Fatalf("no one-line panic row:\n%s", h.screen())
}

// enter shows the selected event whole, its detail wrapped: an error the
// DETAIL column cuts short can be read in full. esc closes it, then clears
// the filter.
func TestEventDetailShowsTheWholeEvent(t *testing.T) {
	cfg := fixtureConfig()
	long := "watch stream: 410 Gone, the reflector relists: too old resource version: 47000 (48000); expect a DeletedFinalStateUnknown for each pod deleted meanwhile"
	cfg.Events = append(cfg.Events, source.Event{Seq: 21, Time: t0.Add(6 * time.Second), Type: source.EventWatchError, Informer: "pods", Detail: long})
	h := newHarness(t, newControlledSource(cfg, &sourcetest.Controller{}))
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("5", "/", "4", "1", "0", "enter")
	ev := h.m.views[viewEvents].(*eventsView)
	if len(ev.rows) != 2 {
		t.Fatalf("\"410\" kept %d events, want the relist and the watch error", len(ev.rows))
	}
	h.keys("enter")
	assertLinesInOrder(t, h.screen(), []string{
		"event #21 · WatchError · 2026-01-02 03:04:11.000 · pods",
		"about    -",
		"detail   watch stream: 410 Gone, the reflector relists: too old resource",
		"         version: 47000 (48000); expect a DeletedFinalStateUnknown for each pod",
		"         deleted meanwhile",
	})
	assertFits(t, h.screen(), 80, 24)
	h.keys("k")
	if !strings.Contains(h.screen(), "event #19 · Relist") {
		t.Fatalf("the panel does not follow the cursor:\n%s", h.screen())
	}
	h.keys("esc")
	if ev.open || ev.filter.query() != "410" || strings.Contains(h.screen(), "event #19") {
		t.Fatalf("esc should close the panel and keep the filter; open %v, filter %q", ev.open, ev.filter.query())
	}
	h.keys("esc")
	if ev.filter.query() != "" {
		t.Fatalf("a second esc should clear the filter, it holds %q", ev.filter.query())
	}
}

func TestHelpOverlay(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("?")
	if !strings.Contains(h.screen(), "controls (demo)") {
		t.Fatalf("help not shown:\n%s", h.screen())
	}
	h.keys("2")
	if h.m.active != viewPipeline || !h.m.showHelp {
		t.Fatal("keys other than close must not act behind the help")
	}
	h.keys("?")
	if h.m.showHelp {
		t.Fatal("? did not close the help")
	}
	h.keys("?", "esc")
	if h.m.showHelp {
		t.Fatal("esc did not close the help")
	}
}

// At the narrowest sizes the help shows every key whole, in two columns,
// rather than cutting the last column off; what does not fit is below,
// the box says so, and the movement keys scroll to it.
func TestHelpFitsTheNarrowestTerminal(t *testing.T) {
	for _, sz := range [][2]int{{minWidth, 24}, {60, 20}, {minWidth, minHeight}} {
		h := fixture(t, sz[0], sz[1])
		h.keys("?")
		first := h.screen()
		if !strings.Contains(first, "↓ more below") {
			t.Fatalf("%v: the help does not say more follows:\n%s", sz, first)
		}
		seen := first
		for i := 0; i < 60 && strings.Contains(h.screen(), "↓ more below"); i++ {
			h.keys("j")
			seen += h.screen()
		}
		for _, want := range []string{"views", "move", "in a view", "controls (demo)", "q/ctrl+c  quit", "pgdown/ctrl+f page down",
			"a all informers", "x     expire RV (410)", "-/_   slower", "b     batch step", "A sort by age"} {
			if !strings.Contains(seen, want) {
				t.Fatalf("%v: scrolling the help never shows %q:\n%s", sz, want, seen)
			}
		}
		for _, l := range strings.Split(h.screen(), "\n")[headerLines : sz[1]-2] {
			if strings.Contains(l, "…") {
				t.Fatalf("%v: help cuts a line: %q\n%s", sz, l, h.screen())
			}
		}
		if !h.m.showHelp {
			t.Fatalf("%v: j closed the help", sz)
		}
	}
}

// A message stays statusFor of wall time however many data ticks come in
// meanwhile (a fast refresh, many informers), and goes at the next key.
func TestStatusStaysForWallTime(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("w")
	if !strings.Contains(h.screen(), "watch dropped") {
		t.Fatal("no status after w")
	}
	h.frames(200) // 20 s of ticks at the default refresh, in no time
	h.advance(statusFor - time.Millisecond)
	if !strings.Contains(h.screen(), "watch dropped") {
		t.Fatal("the message went with the data ticks, before its time had passed")
	}
	h.advance(2 * time.Millisecond)
	h.frames(1)
	if strings.Contains(h.screen(), "watch dropped") {
		t.Fatal("the message is still shown after its time")
	}

	h.keys("w")
	h.keys(":")
	if !strings.Contains(h.screen(), "watch dropped") {
		t.Fatal("opening the : prompt took the message away; what it said may be what is typed")
	}
	h.keys("esc", "j")
	if strings.Contains(h.screen(), "watch dropped") {
		t.Fatal("the message outlived the next key")
	}
}

func TestResizeReflowsEveryScreen(t *testing.T) {
	states := map[string][]string{
		"pipeline": nil, "queue": {"2"}, "listeners": {"3"}, "store": {"4"}, "events": {"5"},
		"help": {"?"}, "switcher": {":"}, "narration": {"n"}, "filter": {"4", "/", "w"},
		"object": {"4", "enter"}, "listener-detail": {"3", "enter"}, "event-detail": {"5", "enter"},
		"index-browser": {"4", "i"},
	}
	for name, keys := range states {
		t.Run(name, func(t *testing.T) {
			h := fixture(t, 80, 24)
			h.keys(keys...)
			for w := 30; w <= 200; w += 17 {
				for ht := 8; ht <= 60; ht += 7 {
					h.size(w, ht)
					assertFits(t, h.screen(), w, ht)
				}
			}
		})
	}
}

func TestTooSmallIgnoresKeysButQuits(t *testing.T) {
	h := fixture(t, 40, 10)
	h.keys("2", "n")
	if h.m.active != viewPipeline || len(h.ctl.Calls()) != 0 {
		t.Fatal("keys acted while the terminal is too small")
	}
	h.keys("q")
	if !h.quit {
		t.Fatal("q must quit even when the terminal is too small")
	}
}

// assertLinesInOrder checks that want appear as whole lines, in order.
func assertLinesInOrder(t *testing.T, screen string, want []string) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	i := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " ")
		if i < len(want) && strings.TrimRight(strings.TrimRight(l, "│"), " ") == strings.TrimRight(want[i], " ") {
			i++
		}
	}
	if i < len(want) {
		t.Fatalf("line %q not found (in order) on screen:\n%s", want[i], screen)
	}
}

// rowFields splits the first screen line containing marker into fields.
func rowFields(screen, marker string) []string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, marker) {
			return strings.Fields(l)
		}
	}
	return nil
}

func TestBeforeTheFirstSnapshot(t *testing.T) {
	src := newFixtureSource()
	h := newHarness(t, src)
	h.size(80, 24)
	for _, k := range []string{"1", "2", "3", "4", "5"} {
		h.keys(k)
		screen := h.screen()
		assertFits(t, screen, 80, 24)
		if !strings.Contains(screen, "waiting for the first snapshot from demo…") {
			t.Fatalf("view %s before any data:\n%s", k, screen)
		}
	}
	src.SetFrames([][]source.Informer{{}})
	h.frames(1)
	if !strings.Contains(h.screen(), "the demo source has no informers to show") {
		t.Fatalf("empty source:\n%s", h.screen())
	}
}

func TestStoreFilterByKeyOrLabels(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("4", "/", "w", "e", "b")
	sv := h.m.views[viewStore].(*storeView)
	if sv.scroll.n != 48 {
		t.Fatalf("\"web\" kept %d keys, want the 48 web pods (labels are not searched)", sv.scroll.n)
	}
	h.keys("esc", "/")
	for _, r := range "app=core" {
		h.keys(string(r))
	}
	if sv.scroll.n != 12 || sv.selectedKey() != "kube-system/coredns-0" {
		t.Fatalf("\"app=core\" kept %d keys starting at %q, want the 12 coredns pods", sv.scroll.n, sv.selectedKey())
	}
}

func TestPasteIntoFilterAndSwitcher(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("4", "/")
	h.send(tea.PasteMsg{Content: "coredns-1"})
	sv := h.m.views[viewStore].(*storeView)
	if sv.filter.query() != "coredns-1" || sv.scroll.n != 3 {
		t.Fatalf("pasted filter %q kept %d keys, want coredns-1, -10, -11", sv.filter.query(), sv.scroll.n)
	}
	h.keys("esc", ":")
	h.send(tea.PasteMsg{Content: "configmaps"})
	h.keys("enter")
	if h.m.c.data.current != "configmaps" {
		t.Fatalf("pasting into the switcher chose %q", h.m.c.data.current)
	}
}

func TestSwitchInformerInEveryView(t *testing.T) {
	states := [][]string{{"1"}, {"2", "enter"}, {"3", "enter"}, {"4", "/", "w", "enter"}, {"4", "enter"}, {"4", "i", "enter"}, {"5", "/", "p", "enter"}}
	for _, keys := range states {
		h := fixture(t, 80, 24)
		h.keys(keys...)
		h.keys(":", "c", "o", "n", "f", "enter")
		if h.m.c.data.current != "configmaps" {
			t.Fatalf("%v: switch failed", keys)
		}
		assertFits(t, h.screen(), 80, 24)
		switch v := h.m.views[h.m.active].(type) {
		case *queueView:
			if v.detail != nil || v.filter.query() != "" {
				t.Fatalf("%v: queue kept the old informer's detail or filter", keys)
			}
		case *listenersView:
			if v.detail || len(v.rows) != 1 {
				t.Fatalf("%v: listeners kept the old detail or rows", keys)
			}
		case *storeView:
			if v.mode != storeList || v.scroll.n != 0 || v.filter.query() != "" {
				t.Fatalf("%v: store kept the old informer's state", keys)
			}
		}
		h.keys(":", "p", "o", "d", "enter", "j", "k")
		assertFits(t, h.screen(), 80, 24)
	}
}
