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

// CountShort is Count below ten million and Compact from there on
// (12,345,678 → "12M"): exact values matter while teaching, huge ones do
// not.
func CountShort[T ~int | ~int64 | ~uint64](n T) string {
	if v := float64(n); v >= 1e7 || v <= -1e7 {
		return Compact(v)
	}
	return Count(n)
}

// Compact renders v with at most three significant digits and a k/M/G
// suffix: 7, 2.5, 999, "1.2k", "56k", "2.5M", "3.1G".
func Compact(v float64) string {
	switch {
	case v < 0:
		return "-" + Compact(-v)
	case v < 10:
		if v == float64(int64(v)) {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v < 999.5: // rounds below 1000
		return strconv.FormatInt(int64(v+0.5), 10)
	case v < 1e6:
		return scaled(v/1e3) + "k"
	case v < 1e9:
		return scaled(v/1e6) + "M"
	default:
		return scaled(v/1e9) + "G"
	}
}

// scaled is a mantissa of Compact: one decimal below ten, whole above.
func scaled(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatInt(int64(v+0.5), 10)
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

// PluralShort is Plural with the number as CountShort renders it:
// "1 relist", "3 watches", "12M objects".
func PluralShort[T ~int | ~int64 | ~uint64](n T, noun string) string {
	return CountShort(n) + " " + Noun(n, noun)
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
