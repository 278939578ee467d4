package engine

import (
	"fmt"
	"strings"

	"github.com/informtop/informtop/internal/humanize"
)

// Headline says which kind of step happened and what it popped, in one
// sentence: a single step, a batch step that popped a batch, or a batch
// step that popped one item because this pop loop does not batch.
func (r StepResult) Headline() string {
	if r.Empty {
		return "the queue was empty: nothing was popped"
	}
	what := "1 item"
	if r.Batch != 1 {
		what = humanize.Count(r.Batch) + " items"
	}
	keys := strings.Join(r.Keys, ", ")
	if len(r.Keys) > 3 {
		keys = fmt.Sprintf("%s … %s (%s keys)", strings.Join(r.Keys[:2], ", "), r.Keys[len(r.Keys)-1], humanize.Count(len(r.Keys)))
	}
	switch {
	case r.Kind != StepBatch:
		return fmt.Sprintf("single step: popped %s (%s)", what, keys)
	case r.QueueKind == DeltaFIFO:
		return fmt.Sprintf("batch step: a DeltaFIFO pops one key at a time, with all its deltas, so it popped %s (%s)", what, keys)
	case !r.Batching:
		return fmt.Sprintf("batch step: batched processing is off (client-go's InOrderInformersBatchProcess gate), so it popped %s (%s)", what, keys)
	}
	return fmt.Sprintf("batch step: popped %s at once, as client-go's batched RealFIFO pop does "+
		"(up to 1,000 distinct keys; a repeated key ends the batch, and a bookmark, relist or resync item goes alone): %s", what, keys)
}

// SummaryLines are the notifications per listener and callback,
// "fast ← OnUpdate ×334", in order of first appearance.
func (r StepResult) SummaryLines() []string {
	out := make([]string, len(r.Summary))
	for i, c := range r.Summary {
		out[i] = c.String()
	}
	return out
}
