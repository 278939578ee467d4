package tui

import (
	"fmt"
	"testing"

	"github.com/informtop/informtop/agent/source"
)

// compareGoldenCases are screens over the compare fixture, typed after its
// ten frames. reader selects the source that implements QueueReader.
var compareGoldenCases = []struct {
	name   string
	reader bool
	keys   []string
	sizes  [][2]int
}{
	{"compare-pipeline", false, nil, [][2]int{{160, 48}, {120, 40}, {80, 24}}},
	{"compare-queue", false, []string{"2"}, [][2]int{{160, 48}, {120, 40}, {80, 24}}},
	{"compare-queue-focus-realfifo", false, []string{":", "r", "e", "a", "l", "enter", "2", "j", "j"}, [][2]int{{160, 48}}},
	{"compare-off", false, []string{"c"}, [][2]int{{160, 48}}},
	{"compare-queue-detail", false, []string{"2", "enter"}, [][2]int{{160, 48}}},
	{"reader-detail-hot", true, []string{"2", "enter"}, [][2]int{{160, 48}, {80, 24}}},
	{"reader-detail-tombstone", true, []string{"2", "j", "j", "j", "j", "j", "enter"}, [][2]int{{160, 48}, {80, 24}}},
	{"reader-detail-bookmark", true, []string{":", "r", "e", "a", "l", "enter", "2", "j", "j", "j", "enter"}, [][2]int{{80, 24}}},
}

func TestGoldenCompare(t *testing.T) {
	for _, tc := range compareGoldenCases {
		for _, sz := range tc.sizes {
			name := fmt.Sprintf("%s-%dx%d", tc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				var src source.Source = newCompareSource()
				if tc.reader {
					src = newReaderSource()
				}
				h := compareHarness(t, src, sz[0], sz[1])
				h.keys(tc.keys...)
				got := h.screen()
				assertFits(t, got, sz[0], sz[1])
				golden(t, name, got)
			})
		}
	}
}
