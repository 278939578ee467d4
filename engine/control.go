package engine

import (
	"errors"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
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
	inf.sink.Emit(instr.Event{Type: pipeline.EventControl, Informer: inf.name, Detail: detail})
}

// Paused reports whether popping is paused.
func (inf *Informer) Paused() bool { return inf.gate.isPaused() }

// Resync fires the reflector's resync timer now, with every listener that
// has a resync period due: the queue is resynced and the sync
// notifications reach those listeners. An informer without a resync period
// has no such timer in client-go, so nothing can be due and Resync refuses,
// leaving the processor as it was: its listeners keep taking the syncs of
// unchanged objects that relists deliver, as they would in client-go.
func (inf *Informer) Resync() error {
	inf.startedMu.Lock()
	q, check := inf.queue, inf.resyncCheckPeriod
	inf.startedMu.Unlock()
	if q == nil {
		return errors.New("informer " + inf.name + " is not running yet: start it before forcing a resync")
	}
	if check == 0 {
		return errors.New("no resync on " + inf.name + ": it has no resync period, so client-go's reflector never resyncs it " +
			"and its listeners keep their relist syncs (the resync scenario has one)")
	}
	inf.processor.ForceResync()
	return q.Resync()
}
