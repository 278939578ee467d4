package tui

import (
	"testing"
	"time"
)

func TestHumanDuration(t *testing.T) {
	cases := map[time.Duration]string{
		0:                                     "0s",
		-time.Second:                          "0s",
		850 * time.Nanosecond:                 "850ns",
		250 * time.Microsecond:                "250µs",
		350 * time.Millisecond:                "350ms",
		1250 * time.Millisecond:               "1.2s",
		12*time.Second + 900*time.Millisecond: "12s",
		3*time.Minute + 4*time.Second:         "3m4s",
		2*time.Hour + 3*time.Minute:           "2h3m",
		75 * time.Hour:                        "3d3h",
	}
	for d, want := range cases {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestCountsAndRates(t *testing.T) {
	counts := map[int64]string{
		0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4200: "-4,200",
		9_999_999: "9,999,999", 10_000_000: "10M", 12_345_678: "12M", -12_345_678: "-12M", 2_500_000_000: "2.5G",
	}
	for n, want := range counts {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
	// Whole-number counts over a sampling interval just over a second
	// read as whole numbers: 5 per 1.02 s is "5/s", not "4.9/s".
	rates := map[float64]string{0: "0/s", 0.04: "0/s", 0.5: "0.5/s", 0.96: "1/s", 12: "12/s", 5 / 1.02: "5/s", 6 / 1.02: "6/s",
		7 / 1.02: "7/s", 999.6: "1.0k/s", 1234: "1.2k/s", 56_000: "56k/s", 2.5e6: "2.5M/s"}
	for r, want := range rates {
		if got := rate(r); got != want {
			t.Errorf("rate(%v) = %q, want %q", r, got, want)
		}
	}
	if plural(1, "watch") != "1 watch" || plural(3, "watch") != "3 watches" || plural(0, "relist") != "0 relists" {
		t.Error("plural")
	}
	// plural shows the number as count does, unlike humanize.Plural.
	if got := plural(uint64(12_345_678), "object"); got != "12M objects" {
		t.Errorf("plural of a huge count = %q", got)
	}
}

func TestFitAndColumns(t *testing.T) {
	if got := fit("abcdef\nxy  \n", 4, 3); got != "abc…\nxy\n" {
		t.Fatalf("fit = %q", got)
	}
	cols := layoutColumns([]column{
		{title: "NAME", width: 6, flex: true, maxw: 10, id: 0},
		{title: "N", width: 3, right: true, id: 1},
		{title: "EXTRA", width: 8, prio: 1, id: 2},
	}, 12)
	if len(cols) != 2 || cols[0].width != 8 {
		t.Fatalf("narrow layout %+v: EXTRA should go, NAME should take the rest", cols)
	}
	if got := renderRow(cols, []string{"web-1", "42", "x"}); got != "web-1     42" {
		t.Fatalf("row = %q", got)
	}
	wide := layoutColumns([]column{{title: "NAME", width: 6, flex: true, maxw: 10}, {title: "N", width: 3, id: 1}}, 40)
	if wide[0].width != 10 {
		t.Fatalf("flex column grew to %d, its limit is 10", wide[0].width)
	}
}
