package tui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/source"

	"github.com/informtop/informtop/agent/source/sourcetest"
)

func TestCompareToggle(t *testing.T) {
	h := compareHarness(t, newCompareSource(), 160, 48)
	if !h.m.c.comparing() {
		t.Fatal("two pods informers at 160 columns should be compared at once")
	}
	screen := h.screen()
	for _, want := range []string{"▸ pods-deltafifo · DeltaFIFO · ✓ synced", "  pods-realfifo · RealFIFO · ✓ synced",
		"Rows/deltas pods-deltafifo 10 rows for 90 deltas (9.0 per row) · pods-realfifo 91 rows for 91 deltas"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("compared pipeline lacks %q:\n%s", want, screen)
		}
	}
	if !strings.Contains(lastLine(screen), "c compare") {
		t.Fatalf("the footer does not offer the compare key: %q", lastLine(screen))
	}

	h.keys("c")
	if h.m.c.compare || h.m.c.comparing() {
		t.Fatal("c did not turn compare mode off")
	}
	screen = h.screen()
	if strings.Contains(screen, "Rows/deltas") {
		t.Fatal("the columns are still drawn with compare off")
	}
	assertLinesInOrder(t, screen, []string{"▸ also on pods: pods-realfifo · c shows them side by side"})
	if !strings.HasPrefix(lastLine(screen), "compare off: only pods-deltafifo is shown") {
		t.Fatalf("status after turning compare off: %q", lastLine(screen))
	}

	h.keys("c")
	if !h.m.c.comparing() {
		t.Fatal("a second c did not turn compare mode back on")
	}
	if !strings.HasPrefix(lastLine(h.screen()), "compare on: pods-deltafifo │ pods-realfifo") {
		t.Fatalf("status after turning compare on: %q", lastLine(h.screen()))
	}

	// The mode is a preference: a narrow terminal suspends it and says
	// why, a wide one brings the columns back.
	h.size(119, 40)
	if h.m.c.comparing() || !h.m.c.compare {
		t.Fatal("at 119 columns compare mode should be on but not drawn")
	}
	assertLinesInOrder(t, h.screen(), []string{"▸ also on pods: pods-realfifo · 120+ columns show them side by side"})
	h.keys("c", "c")
	if !strings.HasPrefix(lastLine(h.screen()), "compare on: widen the terminal to 120 columns to see pods-deltafifo and pods-realfifo side by side") {
		t.Fatalf("turning compare on while narrow should say how to see it: %q", lastLine(h.screen()))
	}
	h.size(120, 40)
	if !h.m.c.comparing() {
		t.Fatal("120 columns should draw the columns")
	}

	// An informer alone on its resource has nothing to compare: c says so
	// and leaves the mode alone, and no hint or key is offered.
	h.keys(":", "s", "e", "c", "enter")
	if h.m.c.data.current != "secrets" || h.m.c.peers() != nil {
		t.Fatalf("switched to %q with peers %v", h.m.c.data.current, h.m.c.peers())
	}
	screen = h.screen()
	if strings.Contains(screen, "also on") || strings.Contains(lastLine(screen), "c compare") {
		t.Fatalf("secrets has no peers but the screen offers a comparison:\n%s", screen)
	}
	h.keys("c")
	if !h.m.c.compare {
		t.Fatal("c without peers changed the mode")
	}
	if !strings.HasPrefix(lastLine(h.screen()), "nothing to compare: no other informer watches secrets") {
		t.Fatalf("c without peers: %q", lastLine(h.screen()))
	}
}

func TestCompareKeyIsRemappable(t *testing.T) {
	km, err := loadKeyMap(writeKeys(t, "compare: [V]\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := compareHarness(t, newCompareSource(), 160, 48)
	h.m.c.keys = km
	h.keys("c")
	if !h.m.c.compare {
		t.Fatal("c still toggles compare after remapping it to V")
	}
	h.keys("V")
	if h.m.c.compare {
		t.Fatal("V does not toggle compare")
	}
	assertLinesInOrder(t, h.screen(), []string{"▸ also on pods: pods-realfifo · V shows them side by side"})
}

func TestCompareQueueFollowsTheSelectedKey(t *testing.T) {
	h := compareHarness(t, newCompareSource(), 160, 48)
	h.keys("2", "j")
	qv := h.m.views[viewQueue].(*queueView)
	if it := qv.selected(); it == nil || it.Key != "default/web-1" {
		t.Fatalf("selected %+v, want default/web-1", it)
	}
	// In the RealFIFO's first 64 rows (events 0–62 and the bookmark),
	// web-1 has the events j%3 == 1 except 4, 19, 34 and 49: 17 of them.
	assertLinesInOrder(t, h.screen(), []string{
		"▸ default/web-1: pods-deltafifo 1 row holding 24 deltas · pods-realfifo 17 rows holding 17 deltas in its first 64",
	})
	marked := 0
	for _, l := range strings.Split(h.screen(), "\n") {
		if _, right, ok := strings.Cut(l, " │ "); ok && strings.HasPrefix(right, "▸ ") && strings.Contains(right, "default/web-1") {
			marked++
		}
	}
	// 38 rows fit under the titles and above the narration: the bookmark
	// and events 0–36, of which web-1's are 1, 7, 10, 13, 16, 22, 25, 28
	// and 31.
	if marked != 9 {
		t.Fatalf("%d web-1 rows marked in the RealFIFO column, want 9", marked)
	}

	// The filter narrows every column alike.
	h.keys("/", "w", "e", "b", "-", "9", "enter")
	if !reflect.DeepEqual(qv.rows, []int{5}) {
		t.Fatalf("focused rows %v, want [5]", qv.rows)
	}
	if p := qv.peer("pods-realfifo"); p == nil || !reflect.DeepEqual(p.rows, []int{21, 51}) {
		t.Fatalf("RealFIFO rows for web-9: %+v, want [21 51] (events 20 and 50, after the bookmark)", p)
	}
}

func TestPeerOffsetBringsTheFirstMarkedRowIntoView(t *testing.T) {
	_, rf, _ := compareQueues()
	rows := make([]int, 64)
	for i := range rows {
		rows[i] = i
	}
	cases := []struct {
		key    string
		rows   int // the first rows of the head that passed the filter
		height int
		want   int
	}{
		{"default/web-0", 64, 10, 0},  // first at row 0
		{"default/web-9", 64, 22, 0},  // first at row 21, the window's last
		{"default/web-9", 64, 20, 15}, // below the window: a third of it above
		{"default/web-9", 64, 10, 18},
		{"default/web-9", 26, 10, 16}, // but never past the last row
		{"default/api-4", 64, 10, 0},  // beyond the head shown
		{"", 64, 10, 0},               // a keyless row marks nothing
	}
	for _, tc := range cases {
		if got := peerOffset(rf, rows[:tc.rows], tc.key, tc.height); got != tc.want {
			t.Errorf("peerOffset(%s, %d rows, height %d) = %d, want %d", tc.key, tc.rows, tc.height, got, tc.want)
		}
	}
}

func lastLine(screen string) string {
	lines := strings.Split(screen, "\n")
	return lines[len(lines)-1]
}

func TestCompareScreensFitEverySize(t *testing.T) {
	states := map[string][]string{
		"pipeline": nil, "queue": {"2"}, "queue-filter": {"2", "/", "w", "e", "b"},
		"detail": {"2", "enter"}, "tombstone": {"2", "j", "j", "j", "j", "j", "enter"},
		"keyless": {":", "r", "e", "a", "l", "enter", "2", "j", "j", "j", "enter"},
	}
	for name, keys := range states {
		t.Run(name, func(t *testing.T) {
			h := compareHarness(t, newReaderSource(), 160, 48)
			h.keys(keys...)
			for w := 30; w <= 260; w += 23 {
				for ht := 8; ht <= 60; ht += 7 {
					h.size(w, ht)
					assertFits(t, h.screen(), w, ht)
				}
			}
		})
	}
}

func TestComparedKeepsTheCurrentInformerInView(t *testing.T) {
	c := &common{data: newDataState(), compare: true}
	for _, n := range []string{"a", "b", "other", "c", "d"} {
		res := "pods"
		if n == "other" {
			res = "secrets"
		}
		c.data.snaps = append(c.data.snaps, source.Informer{Name: n, Resource: res})
	}
	names := func(ss []*source.Informer) (out []string) {
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	cases := []struct {
		width   int
		current string
		want    []string
	}{
		{120, "a", []string{"a", "b"}},
		{120, "c", []string{"b", "c"}},
		{120, "d", []string{"c", "d"}},
		{180, "d", []string{"b", "c", "d"}}, // three columns of 58 fit in 180
		{250, "a", []string{"a", "b", "c", "d"}},
		{119, "a", nil}, // too narrow: not compared at all
		{250, "other", nil},
	}
	for _, tc := range cases {
		c.width, c.data.current = tc.width, tc.current
		var got []string
		if c.comparing() {
			got = names(c.compared())
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("width %d on %s: compared %v, want %v", tc.width, tc.current, got, tc.want)
		}
	}
}

// The comparison line never calls a queue empty while it holds rows, and
// when both are empty it says what the listeners still owe.
func TestCompareLineSaysEmptyOnlyWhenItIs(t *testing.T) {
	cfg := compareConfig()
	for i := range cfg.Frames {
		for j := 0; j < 2; j++ {
			q := &cfg.Frames[i][j].Queue
			q.Depth = 0 // a count read before the head was copied
		}
	}
	h := compareHarness(t, newControlledSource(cfg, &sourcetest.Controller{}), 160, 48)
	if s := h.screen(); strings.Contains(s, "every compared queue is empty") {
		t.Fatalf("rows are shown, yet the line says the queues are empty:\n%s", s)
	}
	for i := range cfg.Frames {
		for j := 0; j < 2; j++ {
			cfg.Frames[i][j].Queue = source.Queue{Kind: cfg.Frames[i][j].QueueKind, Synced: true}
		}
	}
	h = compareHarness(t, newControlledSource(cfg, &sourcetest.Controller{}), 160, 48)
	if s := h.screen(); !strings.Contains(s, "every compared queue is empty; their listeners still owe 6 notifications") {
		t.Fatalf("drained queues with listeners still busy:\n%s", s)
	}
}
