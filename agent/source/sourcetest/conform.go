package sourcetest

import (
	"slices"
	"sync"
	"testing"

	"github.com/informtop/informtop/agent/source"
)

// Churn makes a running source produce at least n more events, and
// returns once it has (a source's own lever: writes to a fake cluster,
// events added to a Fake). Conform uses it to see the cursor move and
// events get lost.
type Churn func(t testing.TB, n int)

// Conform checks, on a running source that has at least one informer,
// what the dashboard and the reports rely on whatever the source: frames
// are their reader's own, cursors move forward and never repeat an event,
// every event from a cursor on is either delivered or counted missed, max
// bounds a pull, stores and controls answer for unknown informers without
// failing, and all of it is safe for concurrent use. ringSize is how many
// events the source holds at most; churn, when not nil, is how to make
// more (Missed is checked only with it).
func Conform(t *testing.T, src source.Source, ringSize int, churn Churn) {
	t.Helper()
	t.Run("identity", func(t *testing.T) {
		if src.Kind() == "" || src.Title() == "" {
			t.Errorf("kind %q, title %q: both name the source in the header", src.Kind(), src.Title())
		}
	})
	t.Run("frame", func(t *testing.T) { conformFrame(t, src) })
	t.Run("cursors", func(t *testing.T) { conformCursors(t, src, churn) })
	if churn != nil && ringSize > 0 {
		t.Run("missed", func(t *testing.T) { conformMissed(t, src, ringSize, churn) })
	}
	t.Run("stores", func(t *testing.T) { conformStores(t, src) })
	t.Run("controls", func(t *testing.T) { conformControls(t, src) })
	t.Run("concurrent", func(t *testing.T) { conformConcurrent(t, src) })
}

func conformFrame(t *testing.T, src source.Source) {
	f := src.Pull(0, 0)
	if len(f.Snapshots) == 0 {
		t.Fatal("a running source with informers pulled a frame with none")
	}
	if f.Taken.IsZero() {
		t.Error("the frame does not say when it was taken")
	}
	seen := map[string]bool{}
	for _, inf := range f.Snapshots {
		if inf.Name == "" || seen[inf.Name] {
			t.Errorf("informer name %q is empty or repeated: the dashboard keys views by it", inf.Name)
		}
		seen[inf.Name] = true
		if !inf.QueueKind.Valid() {
			t.Errorf("informer %s: queue kind %d is not one informtop shows", inf.Name, inf.QueueKind)
		}
	}
	if f.Status.State == "" {
		t.Error("the frame has no status state")
	}
	// A frame is its reader's: changing it changes nothing for the next.
	name := f.Snapshots[0].Name
	f.Snapshots[0].Name = "scribbled"
	if len(f.Snapshots[0].Listeners) > 0 {
		f.Snapshots[0].Listeners[0].Name = "scribbled"
	}
	g := src.Pull(0, 0)
	if g.Snapshots[0].Name != name || len(g.Snapshots[0].Listeners) > 0 && g.Snapshots[0].Listeners[0].Name == "scribbled" {
		t.Error("a pull shares its informers with an earlier reader's frame")
	}
}

func conformCursors(t *testing.T, src source.Source, churn Churn) {
	if churn != nil {
		churn(t, 3)
	}
	f := src.Pull(0, 0)
	checkEvents(t, "from the oldest held", f, 0)
	if len(f.Events) > 0 {
		if one := src.Pull(0, 1); len(one.Events) != 1 {
			t.Errorf("max 1 pulled %d events", len(one.Events))
		} else if one.Next != one.Events[0].Seq+1 {
			t.Errorf("after one event numbered %d the cursor is %d, want the next number", one.Events[0].Seq, one.Next)
		}
	}
	again := src.Pull(f.Next, 0)
	checkEvents(t, "from the cursor", again, f.Next)
	if again.Next < f.Next {
		t.Errorf("the cursor went back from %d to %d", f.Next, again.Next)
	}
	for _, e := range again.Events {
		if slices.ContainsFunc(f.Events, func(o source.Event) bool { return o.Seq == e.Seq }) {
			t.Errorf("event %d was delivered twice", e.Seq)
		}
	}
	if churn == nil {
		return
	}
	churn(t, 1)
	later := src.Pull(again.Next, 0)
	checkEvents(t, "after more events", later, again.Next)
	if later.Next <= again.Next || len(later.Events)+int(later.Missed) == 0 {
		t.Errorf("new events neither delivered nor missed: cursor %d → %d", again.Next, later.Next)
	}
}

// checkEvents: events from cursor on, oldest first, each numbered once.
func checkEvents(t *testing.T, what string, f source.Frame, cursor uint64) {
	t.Helper()
	for i, e := range f.Events {
		if e.Seq < cursor || e.Seq >= f.Next {
			t.Errorf("%s: event %d is outside [%d, %d)", what, e.Seq, cursor, f.Next)
		}
		if i > 0 && e.Seq <= f.Events[i-1].Seq {
			t.Errorf("%s: event %d follows %d: not oldest first", what, e.Seq, f.Events[i-1].Seq)
		}
		if e.Type.String() == "Unknown" {
			t.Errorf("%s: event %d has no type", what, e.Seq)
		}
	}
}

// conformMissed: a reader that falls more than the source holds behind
// is told how many events it lost, and every number from its cursor to
// the next is accounted for.
func conformMissed(t *testing.T, src source.Source, ringSize int, churn Churn) {
	cursor := src.Pull(0, 0).Next
	churn(t, 2*ringSize)
	f := src.Pull(cursor, 0)
	if f.Missed == 0 {
		t.Fatalf("%d events after a reader's cursor, with %d held: it was told it missed none", 2*ringSize, ringSize)
	}
	if got := uint64(len(f.Events)) + f.Missed; got != f.Next-cursor {
		t.Errorf("from cursor %d to %d: %d delivered + %d missed = %d, want every number accounted for", cursor, f.Next, len(f.Events), f.Missed, got)
	}
}

func conformStores(t *testing.T, src source.Source) {
	if src.Store("no-such-informer") != nil {
		t.Error("a store for an informer the source does not have")
	}
	for _, inf := range src.Pull(0, 0).Snapshots {
		sr := src.Store(inf.Name)
		if sr == nil {
			continue // the source does not serve this cache
		}
		entries, gen := sr.Entries()
		if !slices.IsSortedFunc(entries, func(a, b source.Entry) int {
			switch {
			case a.Key < b.Key:
				return -1
			case a.Key > b.Key:
				return 1
			}
			return 0
		}) {
			t.Errorf("%s: entries are not sorted by key", inf.Name)
		}
		if sr.Generation() < gen {
			t.Errorf("%s: the generation went back from %d to %d", inf.Name, gen, sr.Generation())
		}
		if _, ok := sr.Object("no-such/key"); ok {
			t.Errorf("%s: an object for a key that is not cached", inf.Name)
		}
		for _, e := range entries[:min(len(entries), 3)] {
			if o, ok := sr.Object(e.Key); ok && o.Key != e.Key {
				t.Errorf("%s: asked for %s, got %s", inf.Name, e.Key, o.Key)
			}
		}
	}
}

// conformControls: controls are stated once and refuse unknown informers
// with a sentence, never a panic or a hang.
func conformControls(t *testing.T, src source.Source) {
	c := src.Controls()
	if c != src.Controls() {
		t.Error("Controls changed between two calls")
	}
	const nobody = "no-such-informer"
	if p := c.Processing; p != nil {
		if _, err := p.Step(nobody); err == nil {
			t.Error("stepping an unknown informer did not fail")
		}
		if err := p.Resync(nobody); err == nil {
			t.Error("resyncing an unknown informer did not fail")
		}
	}
	if s := c.Stalling; s != nil {
		if _, err := s.ToggleStall(nobody, "nobody"); err == nil {
			t.Error("stalling an unknown listener did not fail")
		}
	}
	if q := c.Queue; q != nil && q.QueueDeltas(nobody, "a/b") != nil {
		t.Error("deltas for an unknown informer")
	}
	if q := c.QueuePager; q != nil {
		if rows, total := q.QueueRows(nobody, 0, 10); len(rows) != 0 || total != 0 {
			t.Error("queue rows for an unknown informer")
		}
	}
	if b := c.Backlog; b != nil && len(b.ListenerBacklog(nobody, "nobody", 10)) != 0 {
		t.Error("a backlog for an unknown listener")
	}
	if v := c.Verifier; v != nil {
		if _, err := v.Verify(t.Context(), nobody); err == nil {
			t.Error("verifying an unknown informer did not fail")
		}
	}
	if tr := c.Table; tr != nil {
		if _, err := tr.Rows(t.Context(), nobody, []string{"a/b"}, false); err == nil || err.Error() == "" {
			t.Errorf("a table for an unknown informer: %v; want a sentence", err)
		}
	}
	if k := c.Cuts; k != nil {
		if _, err := k.Cut(t.Context(), nobody); err == nil {
			t.Error("cutting an unknown informer did not fail")
		} else if err.Error() == "" {
			t.Error("cutting an unknown informer failed without a sentence")
		}
	}
}

// conformConcurrent: the dashboard pulls and reads from command
// goroutines; under -race this finds what is not guarded.
func conformConcurrent(t *testing.T, src source.Source) {
	names := []string{}
	for _, inf := range src.Pull(0, 0).Snapshots {
		names = append(names, inf.Name)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			cursor := uint64(0)
			for range 20 {
				f := src.Pull(cursor, 64)
				cursor = f.Next
				if sr := src.Store(names[i%len(names)]); sr != nil {
					sr.Generation()
				}
				_ = src.Controls()
			}
		})
	}
	wg.Wait()
}
