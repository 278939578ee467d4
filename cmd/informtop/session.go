package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/informtop/informtop/redact"
)

// startSession is what every command that runs a source sets up: client-go's
// log routed as --log-file and -v ask, and a context that ends on ctrl+c
// or SIGTERM (a second one kills the process). end undoes both; defer it
// so it runs once the source has stopped.
func startSession(o *options) (ctx context.Context, end func(), err error) {
	policy, err := redact.NewPolicy(o.redactResources, o.redactAnnotations)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot redact as asked: %w", err)
	}
	redact.SetCurrent(policy)
	closeLog, err := routeClientLogs(o.logFile, o.verbosity)
	if err != nil {
		return nil, nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal asks for an orderly stop; from then on the default
	// handling is back, so a second ctrl+c ends the process at once should
	// the stop ever hang.
	context.AfterFunc(ctx, stop)
	return ctx, func() {
		stop()
		closeLog()
	}, nil
}
