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

func TestCountShortAndPluralShort(t *testing.T) {
	counts := map[int64]string{
		0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4200: "-4,200",
		9_999_999: "9,999,999", 10_000_000: "10M", 12_345_678: "12M", -12_345_678: "-12M", 2_500_000_000: "2.5G",
	}
	for n, want := range counts {
		if got := CountShort(n); got != want {
			t.Errorf("CountShort(%d) = %q, want %q", n, got, want)
		}
	}
	for v, want := range map[float64]string{0: "0", 7: "7", 2.5: "2.5", 999.4: "999", 999.6: "1.0k", 56_000: "56k", 3.1e9: "3.1G"} {
		if got := Compact(v); got != want {
			t.Errorf("Compact(%v) = %q, want %q", v, got, want)
		}
	}
	if PluralShort(1, "watch") != "1 watch" || PluralShort(3, "watch") != "3 watches" || PluralShort(0, "relist") != "0 relists" {
		t.Error("PluralShort")
	}
	// PluralShort shows the number as CountShort does, unlike Plural.
	if got := PluralShort(uint64(12_345_678), "object"); got != "12M objects" {
		t.Errorf("PluralShort of a huge count = %q", got)
	}
}

func TestNoun(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Noun(1, "watch"), "watch"}, {Noun(0, "watch"), "watches"}, {Noun(2, "pass"), "passes"},
		{Noun(int64(-1), "list"), "lists"}, {Noun(uint64(12_000_000), "object"), "objects"},
		{Noun(3, "watch event"), "watch events"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// Tally walks the names in order, whatever the map's order and whatever
// each appends to them: "app" comes before "app.kubernetes.io/name" even
// though "app: " sorts after "app.".
func TestTally(t *testing.T) {
	idx := map[string]int{"namespace": 3, "app.kubernetes.io/name": 1_200, "app": 4}
	spaced := func(name string, n int) string { return name + " " + Count(n) }
	if got, want := Tally(idx, spaced), "app 4, app.kubernetes.io/name 1,200, namespace 3"; got != want {
		t.Errorf("Tally = %q, want %q", got, want)
	}
	colon := func(name string, n int) string { return name + ": " + Plural(n, "value") }
	if got, want := Tally(idx, colon), "app: 4 values, app.kubernetes.io/name: 1,200 values, namespace: 3 values"; got != want {
		t.Errorf("Tally = %q, want %q", got, want)
	}
	if got := Tally(map[string]uint64{"only": 1}, func(name string, n uint64) string { return name + "=" + Count(n) }); got != "only=1" {
		t.Errorf("one entry: %q", got)
	}
	called := false
	if got := Tally(map[string]int(nil), func(string, int) string { called = true; return "x" }); got != "" || called {
		t.Errorf("empty map: %q, each called %v", got, called)
	}
}
