package source

import (
	"context"
	"io"
)

// Describer prints one cached object as kubectl describe does: its
// fields, what refers to it and its recent events, read from the API
// server (get and list only). The dashboard calls it from a command,
// never while drawing. The error is a sentence for the status line.
// Secrets are described as kubectl does: the size of each value, never
// the value.
type Describer interface {
	Describe(ctx context.Context, informer, key string) (string, error)
}

// LogOptions choose which log lines Logs streams.
type LogOptions struct {
	// Container is the container's name; "" for a pod's only container.
	Container string
	// Follow keeps the stream open for new lines.
	Follow bool
	// TailLines, when above 0, starts that many lines before the end.
	TailLines int64
}

// LogStreamer reads a pod's container logs through the API server's
// pods/log subresource (a read). The dashboard calls it from a command,
// never while drawing, and closes the stream it returns.
type LogStreamer interface {
	// Containers names the pod's containers (init containers first),
	// as the cache holds the pod; the error says why there are none.
	Containers(ctx context.Context, namespace, pod string) ([]string, error)
	// Logs opens the log stream of one container.
	Logs(ctx context.Context, namespace, pod string, opts LogOptions) (io.ReadCloser, error)
}
