package tui

import (
	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// stallDetail is the DETAIL of a Stalled or Recovered event: the callback,
// how long it had run (Stalled) or took (Recovered), and the code the
// call was found stuck in, when the source could see it:
// "OnAdd for 2.0s, stuck in main.blockIfLabelled (main.go:44)",
// "OnUpdate returned after 5.3s, was stuck in main.slowReconcile (main.go:61)".
func stallDetail(e *source.Event) string {
	d := humanize.Duration(e.Duration)
	text, stuck := e.Detail+" for "+d, ", stuck in "
	if e.Type == source.EventRecovered {
		text, stuck = e.Detail+" returned after "+d, ", was stuck in "
	}
	if e.Frame != "" {
		text += stuck + e.Frame
	}
	return text
}
