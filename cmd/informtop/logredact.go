package main

import (
	"github.com/go-logr/logr"

	"github.com/informtop/informtop/agent/redact"
)

// redactingSink passes client-go's log on with every request and response
// body redacted: at -v 8 and above client-go logs bodies, a Secret list's
// among them, and the log file is as much an output as the screen.
type redactingSink struct{ logr.LogSink }

// withRedactedBodies wraps l's sink.
func withRedactedBodies(l logr.Logger) logr.Logger {
	return logr.New(redactingSink{l.GetSink()})
}

// bodyKey is the key client-go logs a body under ("Request Body" and
// "Response Body" messages).
const bodyKey = "body"

func (s redactingSink) Info(level int, msg string, kv ...any) {
	s.LogSink.Info(level, msg, redactBodies(kv)...)
}

func (s redactingSink) Error(err error, msg string, kv ...any) {
	s.LogSink.Error(err, msg, redactBodies(kv)...)
}

func (s redactingSink) WithValues(kv ...any) logr.LogSink {
	return redactingSink{s.LogSink.WithValues(redactBodies(kv)...)}
}

func (s redactingSink) WithName(name string) logr.LogSink {
	return redactingSink{s.LogSink.WithName(name)}
}

// Init counts this sink's own frame, so the log names client-go's line.
func (s redactingSink) Init(info logr.RuntimeInfo) {
	info.CallDepth++
	s.LogSink.Init(info)
}

// WithCallDepth passes client-go's call depth on (it logs bodies through
// a helper).
func (s redactingSink) WithCallDepth(depth int) logr.LogSink {
	if d, ok := s.LogSink.(logr.CallDepthLogSink); ok {
		return redactingSink{d.WithCallDepth(depth)}
	}
	return s
}

// redactBodies returns kv with the value of every "body" key redacted; kv
// itself is not changed.
func redactBodies(kv []any) []any {
	var out []any
	for i := 0; i+1 < len(kv); i += 2 {
		if k, _ := kv[i].(string); k != bodyKey {
			continue
		}
		if out == nil {
			out = append([]any(nil), kv...)
		}
		switch b := kv[i+1].(type) {
		case string:
			out[i+1] = redact.Current().Body(b)
		case []byte:
			out[i+1] = redact.Current().Body(string(b))
		}
	}
	if out == nil {
		return kv
	}
	return out
}
