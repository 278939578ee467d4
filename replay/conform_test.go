package replay

import (
	"testing"

	"github.com/informtop/informtop/agent/source/sourcetest"
)

// A replay, settled, behaves as every source must.
func TestReplayConforms(t *testing.T) {
	path, _ := recordDemo(t, 100)
	s := openReplay(t, path, Options{})
	defer runSettled(t, s)()
	// A settled replay makes no more events: its cursors and reads are
	// checked on what the recording gave.
	sourcetest.Conform(t, s, 0, nil)
}
