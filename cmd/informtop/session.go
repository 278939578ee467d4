package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/source/local"
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

// resolveRedactLocally matches the names --redact gives against the
// resources a source without a cluster's discovery watches (the demo, a
// replay), so a name that would redact nothing is refused rather than
// silently kept: without discovery a name is the resource's plural or
// plural.group (no short names, no kinds). what names the source in the
// sentence ("the demo", "the recording").
func resolveRedactLocally(names []string, infs []*local.Informer, what string) error {
	var resources, matched []string
	for _, e := range infs {
		if r := e.Resource(); r != "" && !slices.Contains(resources, r) {
			resources = append(resources, r)
		}
	}
	for _, name := range names {
		n := strings.ToLower(strings.TrimSpace(name))
		found := n == "secrets" // always redacted, watched or not
		for _, r := range resources {
			plural, _, _ := strings.Cut(r, ".")
			if n == strings.ToLower(r) || n == strings.ToLower(plural) {
				matched, found = append(matched, r), true
			}
		}
		if !found {
			return fmt.Errorf("--redact %s: %s watches no resource of that name; without a cluster's discovery (short names, kinds) name one by its plural or plural.group: %s",
				name, what, strings.Join(resources, ", "))
		}
	}
	if len(matched) > 0 {
		redact.SetCurrent(redact.Current().WithResources(matched...))
	}
	return nil
}
