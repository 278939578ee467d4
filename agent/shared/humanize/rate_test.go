package humanize

import "testing"

func TestRate(t *testing.T) {
	// Whole-number counts over a sampling interval just over a second
	// read as whole numbers: 5 per 1.02 s is "5/s", not "4.9/s".
	rates := map[float64]string{0: "0/s", 0.04: "0/s", 0.5: "0.5/s", 0.96: "1/s", 12: "12/s", 5 / 1.02: "5/s", 6 / 1.02: "6/s",
		7 / 1.02: "7/s", 999.6: "1.0k/s", 1234: "1.2k/s", 56_000: "56k/s", 2.5e6: "2.5M/s"}
	for r, want := range rates {
		if got := Rate(r); got != want {
			t.Errorf("Rate(%v) = %q, want %q", r, got, want)
		}
	}
	if got := RateNumber(235.2); got != "235" {
		t.Errorf("RateNumber = %q", got)
	}
}
