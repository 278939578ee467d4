package replay

import (
	"testing"

	"github.com/informtop/informtop/recording"
	"github.com/informtop/informtop/source/sourcetest"
)

// A replay, settled, behaves as every source must.
func TestReplayConforms(t *testing.T) {
	path, _ := recordDemo(t, 100)
	r, err := recording.Open(path, recording.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := run(s)
	defer stop()
	if err := s.WaitSynced(wctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Settled(wctx); err != nil {
		t.Fatal(err)
	}
	// A settled replay makes no more events: its cursors and reads are
	// checked on what the recording gave.
	sourcetest.Conform(t, s, 0, nil)
}
