package engine

import (
	"errors"

	"github.com/informtop/informtop/engine/instr"
)

// SetPaused stops or resumes popping from the queue. While paused the
// reflector keeps filling the queue, which is the point: you can watch it grow.
func (inf *Informer) SetPaused(paused bool) {
	inf.gate.setPaused(paused)
	if !paused {
		// Resuming withdraws a step that was granted but not taken.
		inf.dropStep(nil)
	}
	detail := "resume"
	if paused {
		detail = "pause"
	}
	inf.sink.Emit(instr.Event{Type: instr.EventControl, Informer: inf.name, Detail: detail})
}

// Paused reports whether popping is paused.
func (inf *Informer) Paused() bool { return inf.gate.isPaused() }

// Resync asks the queue for a resync now, as the reflector does when its
// resync timer fires; the sync notifications reach listeners due for one.
func (inf *Informer) Resync() error {
	inf.startedMu.Lock()
	q := inf.queue
	inf.startedMu.Unlock()
	if q == nil {
		return errors.New("informer " + inf.name + " is not running yet: start it before forcing a resync")
	}
	inf.processor.ShouldResync()
	return q.Resync()
}
