package humanize

import "testing"

func TestCountAndPlural(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Count(0), "0"}, {Count(999), "999"}, {Count(1000), "1,000"}, {Count(-1234567), "-1,234,567"},
		{Count(uint64(50000)), "50,000"},
		{Plural(1, "watch"), "1 watch"}, {Plural(3, "watch"), "3 watches"}, {Plural(0, "list"), "0 lists"},
		{Plural(uint64(1200), "page"), "1,200 pages"}, {Plural(2, "pass"), "2 passes"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
