// Package humanize renders numbers the way every part of informtop shows
// them to people, so the dashboard, the demo's notes and the reports agree.
package humanize

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Count renders n with thousands separators: 50000 → "50,000".
func Count[T ~int | ~int64 | ~uint64](n T) string {
	if n < 0 {
		return "-" + group(strconv.FormatUint(uint64(-int64(n)), 10))
	}
	return group(strconv.FormatUint(uint64(n), 10))
}

func group(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Plural is "1 watch", "3 watches", "1,200 lists": the count, then the
// noun, with an English plural ending.
func Plural[T ~int | ~int64 | ~uint64](n T, noun string) string {
	return Count(n) + " " + Noun(n, noun)
}

// Noun is noun as it follows the number n: "watch" for 1, "watches" for
// any other n. Callers that render n their own way pair it with that.
func Noun[T ~int | ~int64 | ~uint64](n T, noun string) string {
	switch {
	case n == 1:
		return noun
	case strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "s"):
		return noun + "es"
	default:
		return noun + "s"
	}
}

// Tally renders a number per name, such as an informer's index sizes: each
// entry of m through each, ordered by name, joined with ", ". An empty m
// gives "", so callers choose their own wording for "none".
func Tally[T ~int | ~int64 | ~uint64](m map[string]T, each func(name string, n T) string) string {
	parts := make([]string, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, each(name, m[name]))
	}
	return strings.Join(parts, ", ")
}
