package humanize

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
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
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestElapsedPreciseTenthsSeconds(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Elapsed(99*time.Second+400*time.Millisecond, time.Second), "1m39s"},
		{Elapsed(2*time.Hour, time.Second), "2h0m0s"},
		{Elapsed(1234567*time.Microsecond, time.Millisecond), "1.235s"},
		{Elapsed(1460*time.Millisecond, 100*time.Millisecond), "1.5s"},
		{Precise(1234567 * time.Microsecond), "1.235s"},
		{Precise(12 * time.Millisecond), "12ms"},
		{Precise(250400 * time.Nanosecond), "250µs"},
		{Precise(0), "0s"},
		{Tenths(2.34), "2.3s"}, {Tenths(12), "12.0s"}, {Tenths(0), "0.0s"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if got := Seconds(1234567*time.Microsecond, time.Millisecond); got != 1.235 {
		t.Errorf("Seconds to the millisecond = %v", got)
	}
	if got := Seconds(250400*time.Nanosecond, time.Microsecond); got != 0.00025 {
		t.Errorf("Seconds to the microsecond = %v", got)
	}
}
