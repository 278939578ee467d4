package agent

// For the external tests, whose functions count as a user's code.
var (
	StackLabel  = stackLabel
	StuckFrames = stuckFrames
)
