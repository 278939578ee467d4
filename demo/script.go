package demo

import (
	"context"
	"slices"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// step is one entry of a scenario's timeline. The runner waits after
// (scaled by TimeScale), then until until holds, then runs do, waits until
// then holds and shows note.
type step struct {
	name  string        // shown in the Events view; tests hold the script at a name
	after time.Duration // scripted delay before the step
	// until, when set, is polled after the delay; the step waits for it so
	// that what the note describes has really happened.
	until func(d *Demo) bool
	do    func(ctx context.Context, d *Demo)
	// then, when set, is polled after do; the note waits for it, so that
	// what the note says the action did has happened.
	then func(d *Demo) bool
	note []string // replaces the notes when not nil
	// tellList adds to the note how the initial lists came: streamed or
	// LIST pages, with their counts. The step must wait until they have.
	tellList bool
	// settle holds the background workload once until holds, and waits for
	// until again, so a note claiming a settled state (nothing pending, the
	// same counts) stays true on screen while it stands: the hold ends as
	// the next step with a note starts. The note says so.
	settle bool
}

// settledNote ends the note of a settle step.
const settledNote = "Background changes are held while this note stands."

// endHold is how long, in real time however fast the demo runs, a
// settled note that ends the lesson keeps the background held before the
// loop's first step releases it: --once reads its report right after the
// script's end, and a scaled-down demo (tests run at 1/100) would
// otherwise start the churn again before that read.
const endHold = time.Second

// untilPoll is how often a step's condition is checked.
const untilPoll = 20 * time.Millisecond

// runScript plays the scenario's timeline on one goroutine until ctx ends.
func (d *Demo) runScript(ctx context.Context) {
	steps := d.plan.script
	settled := false        // the workload is held for a settle step's note
	var endedHeld time.Time // when the lesson ended under a settled note
	for i := 0; i < len(steps); {
		s := steps[i]
		if !sleepCtx(ctx, d.scaled(s.after)) {
			return
		}
		if s.until != nil && !pollCtx(ctx, untilPoll, func() bool { return s.until(d) }) {
			return
		}
		if s.settle && !settled {
			d.work.hold()
			settled = true
			if !pollCtx(ctx, untilPoll, func() bool { return s.until(d) }) {
				return
			}
		}
		if d.stepHook != nil {
			d.stepHook(ctx, s.name)
		}
		if ctx.Err() != nil {
			return
		}
		if settled && s.note != nil && !s.settle {
			// This step replaces the settled note; what it does may
			// need the churn (a stall waits for a call to stall in).
			if !endedHeld.IsZero() && !sleepCtx(ctx, time.Until(endedHeld.Add(endHold))) {
				return
			}
			endedHeld = time.Time{}
			d.work.release()
			settled = false
		}
		if s.do != nil {
			s.do(ctx, d)
		}
		if s.then != nil && !pollCtx(ctx, untilPoll, func() bool { return s.then(d) }) {
			return
		}
		note := s.note
		if s.settle {
			note = append(slices.Clone(note), settledNote)
		}
		switch {
		case note != nil && s.tellList:
			// In one change, so no frame shows the note without its
			// last line (a line added later reads as a status line).
			d.setNote(append(slices.Clone(note), initialListNote(d)))
		case note != nil:
			d.setNote(note)
		case s.tellList:
			d.addNote(initialListNote(d))
		}
		if d.noteHook != nil {
			d.noteHook(s.name)
		}
		d.stepRan(i, s.name)
		if i == d.endAt && settled {
			endedHeld = time.Now()
		}
		d.Log("scenario " + d.cfg.Scenario + ": " + s.name)
		i++
		if i == len(steps) && d.plan.loopFrom >= 0 {
			i = d.plan.loopFrom
		}
	}
}

// scaled applies the configured time scale to a scripted delay.
func (d *Demo) scaled(delay time.Duration) time.Duration {
	return time.Duration(float64(delay) * d.cfg.TimeScale)
}

// sleepCtx waits for delay; false if ctx ended first.
func sleepCtx(ctx context.Context, delay time.Duration) bool {
	if delay <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// pollCtx checks cond every interval until it holds (true) or ctx ends (false).
func pollCtx(ctx context.Context, interval time.Duration, cond func() bool) bool {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return false
		}
	}
}

// lastLessonStep is the index of the script's last step that does or says
// something: a bare wait after it only spaces the loop back to the start,
// and is not part of the lesson. -1 for an empty script.
func lastLessonStep(steps []step) int {
	for i := len(steps) - 1; i >= 0; i-- {
		if s := steps[i]; s.note != nil || s.do != nil || s.tellList {
			return i
		}
	}
	return len(steps) - 1
}

// stepRan records that step i ran: its name, the narration if the step
// changed it, and the script's end.
func (d *Demo) stepRan(i int, name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.step = name
	if last := d.shown[len(d.shown)-1]; !slices.Equal(last.Lines, d.notes) {
		d.shown = append(d.shown, source.ScriptNote{Step: name, Lines: slices.Clone(d.notes)})
	}
	if i == d.endAt {
		select {
		case <-d.scriptEnd:
		default:
			close(d.scriptEnd)
		}
	}
}

// Script implements source.ScriptReader.
func (d *Demo) Script() source.Script {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := source.Script{Scenario: d.cfg.Scenario, Step: d.step, Notes: make([]source.ScriptNote, len(d.shown))}
	for i, n := range d.shown {
		s.Notes[i] = source.ScriptNote{Step: n.Step, Lines: slices.Clone(n.Lines)}
	}
	select {
	case <-d.scriptEnd:
		s.Ended = true
	default:
	}
	return s
}

// WaitScriptEnd implements source.ScriptReader.
func (d *Demo) WaitScriptEnd(ctx context.Context) error {
	select {
	case <-d.scriptEnd:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
