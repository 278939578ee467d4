package humanize

import "fmt"

// Bytes is a size in decimal units, two or three significant digits:
// "640 B", "1.2 kB", "31 MB", "4.3 GB".
func Bytes[T ~int | ~int64 | ~uint64 | ~float64](n T) string {
	v := float64(n)
	units := []string{"B", "kB", "MB", "GB", "TB"}
	i := 0
	for v >= 999.5 && i < len(units)-1 {
		v /= 1000
		i++
	}
	switch {
	case i == 0:
		return fmt.Sprintf("%.0f B", v)
	case v < 9.95:
		return fmt.Sprintf("%.1f %s", v, units[i])
	}
	return fmt.Sprintf("%.0f %s", v, units[i])
}
