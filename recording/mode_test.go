package recording

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordingRefusesWhatAReplayWould: a header with more informers or
// listeners than a replay reads is refused before the file is created.
func TestRecordingRefusesWhatAReplayWould(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.rec.zst")
	many := Header{Informers: make([]Informer, MaxInformers+1)}
	if _, err := Create(path, many); err == nil || !strings.Contains(err.Error(), "cannot record to "+path+": a replay builds at most 1024 informers and this recording would have 1025; record fewer resources") {
		t.Errorf("%d informers: %v", len(many.Informers), err)
	}
	busy := Header{Informers: []Informer{{Name: "pods", Listeners: make([]Listener, MaxListeners+1)}}}
	if _, err := Create(path, busy); err == nil || !strings.Contains(err.Error(), "a replay builds at most 4096 listeners and this recording would have 4097") {
		t.Errorf("%d listeners: %v", MaxListeners+1, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the refused recording was created: %v", err)
	}
}
