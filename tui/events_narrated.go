package tui

import (
	"slices"
	"strings"

	"github.com/informtop/informtop/agent/source"
)

// The Events view follows the narration until the user filters it: while
// a note sends you to the Events view and names events ("WatchClose, then
// WatchOpen", "the 410", "the Relist"), the view lists those events, of the
// current informer and of those the note names. Otherwise the per-object
// events (tens a second per change) would bury the one a note points at
// within a second at 80×24. t, a or / leave the narrated list for good.

// narratedWords are phrases a note uses for an event type beside the
// type's own name.
var narratedWords = []struct {
	phrase string
	types  []source.EventType
}{
	{"410", []source.EventType{source.EventWatchError}},
	{"refused WATCH", []source.EventType{source.EventWatchError}},
	{"listed again", []source.EventType{source.EventRelist}},
	{"watch closing", []source.EventType{source.EventWatchClose}},
	{"reopening", []source.EventType{source.EventWatchOpen}},
	{"reconnect", []source.EventType{source.EventWatchClose, source.EventWatchOpen}},
	{"sync calls", []source.EventType{source.EventHandlerFinish}},
}

// narratedEvents is what the notes send the Events view to: the event
// types they name, in order of first mention; nil when no note points at
// the Events view or names none.
func narratedEvents(notes []string) []source.EventType {
	text := strings.Join(notes, "\n")
	if !strings.Contains(text, "Events view") && !strings.Contains(text, "Events:") {
		return nil
	}
	type hit struct {
		at int
		t  source.EventType
	}
	var hits []hit
	for t := source.EventListPage; t.String() != "Unknown"; t++ {
		if i := wordIndex(text, t.String()); i >= 0 {
			hits = append(hits, hit{i, t})
		}
	}
	for _, w := range narratedWords {
		if i := wordIndex(text, w.phrase); i >= 0 {
			for _, t := range w.types {
				hits = append(hits, hit{i, t})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
	var out []source.EventType
	for _, h := range hits {
		if !slices.Contains(out, h.t) {
			out = append(out, h.t)
		}
	}
	return out
}

// narrated is the narrated list in force: the types and the informers
// beside the current one; ok is false when the view lists as the user
// chose.
func (v *eventsView) narrated() (types []source.EventType, others []string, ok bool) {
	if v.unnarrated || v.category != 0 || v.all || v.filter.spec().active() {
		return nil, nil, false
	}
	types = narratedEvents(v.c.data.notes)
	if len(types) == 0 {
		return nil, nil, false
	}
	for _, name := range v.c.notedInformers() {
		if name != v.c.data.current {
			others = append(others, name)
		}
	}
	return types, others, true
}

// keepNarrated reports whether e belongs in the narrated list.
func keepNarrated(e *source.Event, types []source.EventType, current string, others []string) bool {
	if !slices.Contains(types, e.Type) {
		return false
	}
	return e.Informer == "" || e.Informer == current || slices.Contains(others, e.Informer)
}

// narratedScope is the summary's "type: …" and scope while narrated.
func narratedScope(types []source.EventType, current string, others []string) (string, string) {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.String()
	}
	return "as narrated: " + strings.Join(names, ", "), strings.Join(append([]string{current}, others...), ", ")
}

// headline is the current note's first line, "" without notes.
func headline(c *common) string {
	if len(c.data.notes) == 0 {
		return ""
	}
	return c.data.notes[0]
}

// keyedEvent reports an event type that names a listener or an object.
func keyedEvent(t source.EventType) bool {
	switch t {
	case source.EventWatchEvent, source.EventPop, source.EventStoreUpdate, source.EventDistribute, source.EventHandlerStart,
		source.EventHandlerFinish, source.EventHandlerPanic, source.EventCacheMutation, source.EventStalled, source.EventRecovered:
		return true
	}
	return false
}
