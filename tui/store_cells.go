package tui

import (
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// The Store's own cells read as kubectl prints them, so a value copied
// from one compares with the other.

// ageCell is an object's age as kubectl get prints it ("70s", "6m",
// "12m"): apimachinery's HumanDuration of the time since its creation;
// blank when the source does not tell it (a recording's keys).
func ageCell(now, created time.Time) string {
	if created.IsZero() {
		return ""
	}
	return duration.HumanDuration(since(now, created))
}

// labelCell is LABELS as kubectl get --show-labels prints it: "<none>"
// for an object without labels.
func labelCell(text string) string {
	if text == "" {
		return "<none>"
	}
	return text
}

// storeFilterRows is the most objects whose rows a text filter asks the
// source for, so that it searches their every cell (/Pending finds the
// Pending pods); past it, the rows read for the pages shown are searched.
const storeFilterRows = 500

// filterReadsAll says a text filter, or a sort by a server column, is in
// force and the cache small enough for every row to be asked for.
func (v *storeView) filterReadsAll() bool {
	needs := v.filter.spec().mode == filterText || (v.sort.on && v.sort.col >= scServer)
	return v.c.caps.table != nil && needs && len(v.keys) <= storeFilterRows
}

// setTextCorpus makes what a text filter searches: each object's visible
// cells, one a line so that ^ and $ anchor to a cell: the key, LABELS,
// AGE and the server's cells read so far.
func (v *storeView) setTextCorpus() {
	now := v.c.now()
	texts := make([]string, len(v.keys))
	var b strings.Builder
	for i, k := range v.keys {
		b.Reset()
		b.WriteString(k)
		if i < len(v.labels) && v.labels[i] != "" {
			b.WriteString("\n" + v.labels[i])
		}
		if i < len(v.created) {
			if age := ageCell(now, v.created[i]); age != "" {
				b.WriteString("\n" + age)
			}
		}
		for _, c := range v.table.rows[k] {
			if c != "" {
				b.WriteString("\n" + c)
			}
		}
		texts[i] = b.String()
	}
	v.tmatch.setCorpus(texts)
	v.corpusStale = false
}
