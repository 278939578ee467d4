package source

import (
	"time"

	"github.com/informtop/informtop/agent/pipeline"
)

// StallAfter is how long a handler may stay in one callback before its
// listener counts as stalled: the dashboard's default and the report's.
const StallAfter = 2 * time.Second

// The handler methods a listener runs.
const (
	CallbackAdd    = pipeline.CallbackAdd
	CallbackUpdate = pipeline.CallbackUpdate
	CallbackDelete = pipeline.CallbackDelete
)

type (
	// Delivered counts the calls a handler returned from, by kind.
	Delivered = pipeline.Delivered
	// Pending is one notification waiting in a listener's backlog.
	Pending = pipeline.Pending
	// CacheMutation is one change a handler made to a cached object.
	CacheMutation = pipeline.CacheMutation
)

type (
	// Listener is one handler registration of an informer
	// (pipeline.Listener).
	Listener = pipeline.Listener
	// StackFrame is one function of a goroutine's stack.
	StackFrame = pipeline.StackFrame
)
