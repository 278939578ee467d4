package instr

import (
	"slices"
	"time"
)

// Percentiles returns the nearest-rank p50 and p99 of ds, sorting ds in
// place; zero for an empty window.
func Percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	slices.Sort(ds)
	return ds[rank(50, len(ds))], ds[rank(99, len(ds))]
}

// rank is the index of the pct-th percentile among n sorted values:
// ceil(pct*n/100) - 1, the smallest value with at least pct% at or below it.
func rank(pct, n int) int {
	return (pct*n+99)/100 - 1
}
