package humanize

import "testing"

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want string
	}{{0, "0 B"}, {640, "640 B"}, {999, "999 B"}, {1200, "1.2 kB"}, {9940, "9.9 kB"}, {31_400_000, "31 MB"}, {4.3e9, "4.3 GB"}} {
		if got := Bytes(c.n); got != c.want {
			t.Errorf("Bytes(%v) = %q, want %q", c.n, got, c.want)
		}
	}
}
