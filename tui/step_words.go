package tui

import (
	"fmt"
	"strings"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// stepHeadline says which kind of step happened and what it popped, in one
// sentence: a single step, a batch step that popped a batch, or a batch
// step that popped one item because this pop loop does not batch.
func stepHeadline(r source.StepResult) string {
	if r.Empty {
		return "the queue was empty: nothing was popped"
	}
	what := humanize.Plural(r.Batch, "item")
	keys := strings.Join(r.Keys, ", ")
	if len(r.Keys) == 1 && r.Keys[0] == "" && len(r.Deltas) > 0 {
		keys = string(r.Deltas[0]) + ", no key"
	}
	if len(r.Keys) > 3 {
		keys = fmt.Sprintf("%s … %s (%s keys)", strings.Join(r.Keys[:2], ", "), r.Keys[len(r.Keys)-1], humanize.Count(len(r.Keys)))
	}
	inParens := "(" + keys + ")"
	if len(r.Keys) == 1 && strings.HasPrefix(keys, "(") && strings.HasSuffix(keys, ")") {
		// A bookmark, relist or resync item names itself in parentheses
		// already; the headline's own would double them.
		inParens = keys
	}
	switch {
	case r.Kind != source.StepBatch:
		return fmt.Sprintf("single step: popped %s %s", what, inParens)
	case r.QueueKind == source.DeltaFIFO:
		return fmt.Sprintf("batch step: a DeltaFIFO pops one key at a time, with all its deltas, so it popped %s %s", what, inParens)
	case !r.Batching:
		return fmt.Sprintf("batch step: batched processing is off (client-go's InOrderInformersBatchProcess gate), so it popped %s %s", what, inParens)
	}
	return fmt.Sprintf("batch step: popped %s at once, as client-go's batched RealFIFO pop does "+
		"(up to 1,000 distinct keys; a repeated key ends the batch, and a bookmark, relist or resync item goes alone): %s", what, keys)
}

// stepSummaryLines are the notifications per listener and callback,
// "fast ← OnUpdate ×334", in order of first appearance.
func stepSummaryLines(r source.StepResult) []string {
	out := make([]string, len(r.Summary))
	for i, c := range r.Summary {
		out[i] = notificationCount(c)
	}
	return out
}

// notificationCount reads "fast ← OnUpdate ×334", or without the count
// when it is one.
func notificationCount(c source.NotificationCount) string {
	if c.Count == 1 {
		return c.Listener + " ← " + c.Callback
	}
	return fmt.Sprintf("%s ← %s ×%d", c.Listener, c.Callback, c.Count)
}

// wholeStorePop reports a pop of a RealFIFO's whole-store item: a resync's
// SyncAll hands every cached object to OnUpdate, a ReplacedAll every
// listed one, so it notifies once per object under no key of its own.
func wholeStorePop(ts []cache.DeltaType) bool {
	return len(ts) == 1 && (ts[0] == cache.SyncAll || ts[0] == cache.ReplacedAll)
}
