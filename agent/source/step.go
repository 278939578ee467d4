package source

import "github.com/informtop/informtop/agent/pipeline"

type (
	// StepResult is what happened to the queue items one step popped.
	StepResult = pipeline.StepResult
	// StepNotification is one notification handed to one listener.
	StepNotification = pipeline.StepNotification
	// StepKind is the kind of step asked for.
	StepKind = pipeline.StepKind
	// NotificationCount is how many notifications of one callback a
	// listener was handed during a step.
	NotificationCount = pipeline.NotificationCount
)

// The kinds of step.
const (
	StepSingle = pipeline.StepSingle
	StepBatch  = pipeline.StepBatch
)
