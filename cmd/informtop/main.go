// Command informtop is "top for informers": a terminal dashboard of an
// instrumented Kubernetes informer pipeline.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `informtop — top for informers

Usage:
  informtop [flags]            the dashboard (the embedded demo cluster when no kubeconfig is found)
  informtop --demo [--scenario NAME]
  informtop --once [--json]    wait for the sync, print one report, exit (1 if not synced in --timeout)
  informtop scenarios          list the demo scenarios

Flags:
`

// run is main without the process: it returns the exit code. The dashboard
// reads the keyboard from the terminal itself.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "scenarios":
			printScenarios(stdout)
			return 0
		case "attach":
			fmt.Fprintln(stderr, "informtop: attach is not available in this build yet; run informtop --demo to explore the engine.")
			return 2
		}
	}
	opts, fs, err := parseOptions(args, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "informtop: %v\n", err)
		return 2
	}
	if opts.help {
		fmt.Fprint(stdout, usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0
	}
	closeLog, err := routeClientLogs(opts.logFile)
	if err != nil {
		fmt.Fprintf(stderr, "informtop: %v\n", err)
		return 2
	}
	defer closeLog()
	// informtop's own informers survive a panicking handler and show it
	// (SPEC §3 rule 14); a drop-in use elsewhere keeps client-go's default.
	utilruntime.ReallyCrash = false

	src, err := chooseSource(opts, fs)
	if err != nil {
		fmt.Fprintf(stderr, "informtop: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if opts.once {
		return runOnce(ctx, src, opts, stdout, stderr)
	}
	if !isTerminal(stdout) {
		fmt.Fprintln(stderr, "informtop: stdout is not a terminal, so the dashboard cannot start; use informtop --once for a table or informtop --once --json for JSON.")
		return 2
	}
	if err := runDashboard(ctx, src, opts); err != nil {
		fmt.Fprintf(stderr, "informtop: %v\n", err)
		return 1
	}
	return 0
}

// routeClientLogs keeps client-go's klog lines off the screen: they go to
// --log-file when given, and nowhere otherwise.
func routeClientLogs(path string) (func(), error) {
	if path == "" {
		klog.SetLogger(logr.Discard())
		return func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open the log file: %w", err)
	}
	klog.SetLogger(funcr.New(func(prefix, args string) {
		fmt.Fprintln(f, prefix, args)
	}, funcr.Options{LogTimestamp: true}))
	return func() { _ = f.Close() }, nil
}
