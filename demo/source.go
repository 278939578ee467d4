package demo

// Notes returns what the scenario wants the viewer to watch right now,
// followed by live status lines; the first line is the headline.
func (d *Demo) Notes() []string {
	d.mu.Lock()
	notes := append([]string(nil), d.notes...)
	d.mu.Unlock()
	if d.plan.status != nil && d.started.Load() {
		notes = append(notes, d.plan.status(d)...)
	}
	return notes
}
