package humanize

import (
	"strconv"
	"strings"
)

// Rate renders a per-second rate: "0/s", "0.5/s", "5/s", "1.2k/s". Rates
// are counts of whole things over an interval a little longer than a
// second (samples at least a second apart), so from one per second on
// they are rounded to whole numbers: 5 events read "5/s", not "4.9/s".
// Below one, a tenth says "now and then".
func Rate(perSecond float64) string {
	switch {
	case perSecond < 0.05:
		return "0/s"
	case perSecond < 0.95:
		return strconv.FormatFloat(perSecond, 'f', 1, 64) + "/s"
	case perSecond < 999.5:
		return strconv.FormatInt(int64(perSecond+0.5), 10) + "/s"
	}
	return Compact(perSecond) + "/s"
}

// RateNumber is Rate without its unit, for "235 ev/s".
func RateNumber(perSecond float64) string { return strings.TrimSuffix(Rate(perSecond), "/s") }
