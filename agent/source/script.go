package source

import "context"

// ScriptReader is a scripted source's lesson (the demo's scenarios): where
// its script is and what it has said, for a report taken of it.
type ScriptReader interface {
	// Script is the script's state now.
	Script() Script
	// WaitScriptEnd returns nil once the script has run its last step (a
	// script that loops: its first pass), or ctx's error before that.
	WaitScriptEnd(ctx context.Context) error
}

// Script is where a scenario's script is.
type Script struct {
	// Scenario is the scenario's name.
	Scenario string `json:"scenario"`
	// Step is the name of the step run last; "" before the first.
	Step string `json:"step"`
	// Ended: the script has run its last step.
	Ended bool `json:"ended"`
	// Notes are the notes shown so far, oldest first: each time the
	// narration changed, the step that changed it and its lines.
	Notes []ScriptNote `json:"notes"`
}

// ScriptNote is one narration the script showed.
type ScriptNote struct {
	// Step is the step that showed it; "" for the scenario's summary,
	// shown before the first step.
	Step  string   `json:"step"`
	Lines []string `json:"lines"`
}
