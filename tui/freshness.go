package tui

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/informtop/informtop/agent/source"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// The answers to "is it fresh?" and "what does it cost?" as the dashboard
// words them, from the engine's figures (source.FreshnessOf, the
// snapshot's Memory); ages are taken at the snapshot's time.

// silence is the short warning for the title line, "" unless the
// informer's watch has gone silent.
func silence(s *source.Informer) string {
	f := source.FreshnessOf(*s, s.Taken)
	if !f.Silent {
		return ""
	}
	return fmt.Sprintf("SILENT %s", humanize.Duration(seconds(f.QuietSeconds)))
}

// silenceSentence says what a silent watch means and what to do.
func silenceSentence(s *source.Informer, canVerify bool) string {
	f := source.FreshnessOf(*s, s.Taken)
	if !f.Silent {
		return ""
	}
	// The limit is what a healthy watch owes: a bookmark about every
	// minute once anything changed (docs/clusters.md, "Is it fresh?").
	msg := fmt.Sprintf("⚠ silent: nothing from the server for %s (limit %s); the cache may be stale",
		humanize.Duration(seconds(f.QuietSeconds)), humanize.Duration(seconds(f.SilentAfterSeconds)))
	if canVerify {
		msg += " — v compares it"
	}
	return msg
}

// freshnessLine is the API server stage's freshness: ages of the last
// event and bookmark, the watch's age and its restarts.
func freshnessLine(s *source.Informer) string {
	f := source.FreshnessOf(*s, s.Taken)
	age := func(what string, a *float64) string {
		if a == nil {
			return "no " + what + " yet"
		}
		return what + " " + humanize.Duration(seconds(*a)) + " ago"
	}
	return joinNonEmpty(" · ", age("event", f.LastEventAgeSeconds), age("bookmark", f.LastBookmarkAgeSeconds),
		humanize.PluralShort(f.WatchRestarts, "watch restart"))
}

// heardLine is freshnessLine from the agent's series, which say when the
// informer last heard from the server (informtop_informer_quiet_seconds),
// not whether that was an event or a bookmark.
func heardLine(s *source.Informer) string {
	heard := ""
	if !s.Reflector.LastHeard.IsZero() {
		heard = "heard " + humanize.Duration(since(s.Taken, s.Reflector.LastHeard)) + " ago"
	}
	return joinNonEmpty(" · ", heard, humanize.PluralShort(source.FreshnessOf(*s, s.Taken).WatchRestarts, "watch restart"))
}

// memoryLine is the Store view's "what does it cost": the estimate, per
// object, where it goes and what the transforms save; "" before the first
// sample.
func memoryLine(m source.Memory) string {
	if m.Sampled == 0 || m.EstimatedBytes <= 0 {
		return ""
	}
	s := fmt.Sprintf("~%s (%s/object", humanize.Bytes(m.EstimatedBytes), humanize.Bytes(m.BytesPerObject))
	if top := largestField(m.ByField); top != "" {
		s += fmt.Sprintf(", %s %.0f%%", top, 100*m.ByField[top]/m.EstimatedBytes)
	}
	s += ")"
	for _, name := range slices.Sorted(maps.Keys(m.SavedByTransforms)) {
		if saved := m.SavedByTransforms[name]; saved > 0 {
			s += fmt.Sprintf(" · %s saved %s", name, humanize.Bytes(saved))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.WouldSaveByTransforms)) {
		if would := m.WouldSaveByTransforms[name]; would > 0 {
			s += fmt.Sprintf(" · %s would save %s", name, humanize.Bytes(would))
		}
	}
	if m.GoHeapBytes > 0 {
		s += " · Go heap " + humanize.Bytes(m.GoHeapBytes)
	}
	return s
}

func largestField(by map[string]float64) string {
	top := ""
	for _, k := range slices.Sorted(maps.Keys(by)) {
		if top == "" || by[k] > by[top] {
			top = k
		}
	}
	return top
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
