package tui

import (
	"fmt"
	"testing"
)

// clientGoGoldenCases pin the screens of client-go's own informer, as
// attach --verify shows it (see newClientGoSource), after the fixture's
// frames.
var clientGoGoldenCases = []struct {
	name string
	keys []string
}{
	{"clientgo-pipeline", nil},
	{"clientgo-queue", []string{"2"}},
	{"clientgo-listeners", []string{"3"}},
	{"clientgo-listener-detail", []string{"3", "enter"}},
	{"clientgo-events", []string{"5"}},
	{"clientgo-help", []string{"?"}},
}

func TestClientGoGoldenScreens(t *testing.T) {
	for _, tc := range clientGoGoldenCases {
		for _, sz := range goldenSizes {
			name := fmt.Sprintf("%s-%dx%d", tc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				h := newHarness(t, newClientGoSource())
				h.size(sz[0], sz[1])
				h.frames(fixtureFrames)
				h.keys(tc.keys...)
				got := h.screen()
				assertFits(t, got, sz[0], sz[1])
				golden(t, name, got)
			})
		}
	}
}
