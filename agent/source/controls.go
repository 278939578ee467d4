package source

// Controls are what a source can do beyond showing data. Each source
// states its own in Controls(); a nil field means it cannot, and the
// dashboard hides that field's keys and says why when one is pressed.
// Wrapping a source (Decorate) keeps its controls unless the wrapper says
// otherwise, so no capability is lost or invented by a wrapper.
type Controls struct {
	// Processing pauses, steps and resyncs informers running in this process.
	Processing Processing
	// Stalling blocks a simulated listener in its callback.
	Stalling Stalling
	// Faults breaks a simulated API server.
	Faults Faults
	// Workload changes a simulated cluster's rate of change.
	Workload Workload
	// Queue shows what is queued for one key; QueuePager pages through a
	// whole queue; Backlog shows what a listener still owes.
	Queue      QueueReader
	QueuePager QueuePager
	Backlog    ListenerReader
	// Verifier compares a cache with the API server.
	Verifier Verifier
	// Server waits for the first reading of the API server's figures.
	Server ServerReader
	// Cuts copies an informer's cache as one state, for verify.
	Cuts Cutter
	// Retarget changes what the source watches while it runs.
	Retarget Retargeting
	// Retry says when backed-off informers try again, and retries now.
	Retry Retrier
	// Table prints cached objects as kubectl get does, for the Store view.
	Table TableReader
	// Describe prints an object as kubectl describe does; Logs reads a
	// pod's container logs (both through the API server, reads only).
	Describe Describer
	Logs     LogStreamer
	// Script is a demo scenario's script, for --once's report.
	Script ScriptReader
}

// Decoration changes what a wrapped source shows. A nil field leaves the
// source's own.
type Decoration struct {
	// Title gives the title from the source's.
	Title func(title string) string
	// Frame changes every frame the source pulls.
	Frame func(Frame) Frame
	// Controls gives the controls from the source's: to add one (a
	// verifier the source itself lacks) or take one away.
	Controls func(Controls) Controls
}

// Decorate wraps src: its title, frames and controls as d says, the rest
// (kind, stores, running, syncing) src's own.
func Decorate(src Source, d Decoration) Source { return decorated{src, d} }

type decorated struct {
	Source
	d Decoration
}

func (s decorated) Title() string {
	if s.d.Title != nil {
		return s.d.Title(s.Source.Title())
	}
	return s.Source.Title()
}

func (s decorated) Pull(cursor uint64, maxEvents int) Frame {
	f := s.Source.Pull(cursor, maxEvents)
	if s.d.Frame != nil {
		f = s.d.Frame(f)
	}
	return f
}

func (s decorated) Controls() Controls {
	c := s.Source.Controls()
	if s.d.Controls != nil {
		c = s.d.Controls(c)
	}
	return c
}
