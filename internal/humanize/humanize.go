// Package humanize renders numbers the way every part of informtop shows
// them to people, so the dashboard, the demo's notes and the reports agree.
package humanize

import (
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
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "s") {
		return Count(n) + " " + noun + "es"
	}
	return Count(n) + " " + noun + "s"
}
