package demo

// Notes returns what the scenario wants the viewer to watch right now,
// followed by live status lines; the first line is the headline. While
// the workload outruns a handler the warning comes right after the
// headline, where the dashboard's narration panel has room for it.
func (d *Demo) Notes() []string {
	d.mu.Lock()
	notes := append([]string(nil), d.notes...)
	d.mu.Unlock()
	// The warning right after the note, before the status lines: the
	// dashboard reads every line from the first that changes on as
	// status, and the warning's figures change.
	if w := d.rateWarning(); w != "" && d.started.Load() {
		notes = append(notes, w)
	}
	if d.plan.status != nil && d.started.Load() {
		notes = append(notes, d.plan.status(d)...)
	}
	return notes
}
