package tui

import (
	"strings"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
)

// A bookmark, relist or resync item names itself in parentheses; the
// headline reads it once, not "((bookmark 600))".
func TestStepHeadlineNamesASyntheticItemOnce(t *testing.T) {
	for _, key := range []string{"(bookmark 600)", "(relist of 300 objects)", "(resync of every object)"} {
		for _, kind := range []source.StepKind{source.StepSingle, source.StepBatch} {
			r := source.StepResult{Kind: kind, Batch: 1, Keys: []string{key}, Deltas: []cache.DeltaType{cache.Bookmark}, Batching: true}
			got := stepHeadline(r)
			if strings.Contains(got, "((") || !strings.Contains(got, key) {
				t.Errorf("%s of %s: %q", kind, key, got)
			}
		}
	}
}
