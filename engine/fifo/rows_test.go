package fifo

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// rowsText renders rows as "key:Type,Type", "" keys as "-".
func rowsText(rows []Item) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		key := r.Key
		if key == "" {
			key = "-"
		}
		types := make([]string, len(r.Types))
		for j, t := range r.Types {
			types[j] = string(t)
		}
		out[i] = key + ":" + strings.Join(types, ",")
	}
	return out
}

func TestRowsPagesThroughTheWholeQueue(t *testing.T) {
	df := NewDeltaFIFO(cache.DeltaFIFOOptions{})
	rf := NewRealFIFO(rfDefaultOpts())
	for i := range 100 {
		name := string(rune('a'+i/26)) + string(rune('a'+i%26))
		rfNoErr(t, df.Add(dfObj(name, 1)))
		rfNoErr(t, rf.Add(rfPod(name, "1")))
	}
	rfNoErr(t, df.Update(dfObj("aa", 2)))
	rfNoErr(t, rf.Bookmark("7"))
	rfNoErr(t, rf.Resync())

	cases := []struct {
		name        string
		q           Instrumented
		offset, max int
		total       int
		want        []string
	}{
		{"DeltaFIFO first page keeps coalesced deltas", df, 0, 2, 100, []string{"ns/aa:Added,Updated", "ns/ab:Added"}},
		{"DeltaFIFO past the snapshot's head", df, 98, 10, 100, []string{"ns/du:Added", "ns/dv:Added"}},
		{"DeltaFIFO beyond the end", df, 200, 10, 100, nil},
		{"RealFIFO keyless rows carry their type", rf, 100, 5, 102, []string{"-:Bookmark", "-:SyncAll"}},
		{"RealFIFO middle page", rf, 50, 1, 102, []string{"ns/by:Added"}},
		{"no rows asked", rf, 0, 0, 102, nil},
	}
	for _, c := range cases {
		rows, total := c.q.Rows(c.offset, c.max)
		if total != c.total || !slices.Equal(rowsText(rows), c.want) {
			t.Errorf("%s: Rows(%d, %d) = %q, %d; want %q, %d", c.name, c.offset, c.max, rowsText(rows), total, c.want, c.total)
		}
	}
}
