package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/informtop/informtop/engine"
)

// options are the command line of the dashboard and of --once, kept apart
// from the code that acts on them.
type options struct {
	demo      bool
	scenario  string
	seed      int64
	rate      float64
	queue     string
	watchList bool

	once     bool
	json     bool
	timeout  time.Duration
	duration time.Duration
	refresh  time.Duration
	logFile  string

	kubeconfig    string
	context       string
	namespace     string
	allNamespaces bool
	selector      string
	fieldSelector string
	resources     []string

	help bool
}

func newFlagSet(o *options, out io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("informtop", pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.SortFlags = false
	fs.BoolVar(&o.demo, "demo", false, "run on the embedded demo cluster (the default when no kubeconfig is found)")
	fs.StringVar(&o.scenario, "scenario", "steady", "demo scenario to run (informtop scenarios lists them)")
	fs.Int64Var(&o.seed, "seed", 1, "demo workload seed: the same seed replays the same run")
	fs.Float64Var(&o.rate, "rate", 0, "demo workload rate in changes per second (0: the scenario's own)")
	fs.StringVar(&o.queue, "queue", "RealFIFO", "queue between reflector and indexer: RealFIFO (client-go's default) or DeltaFIFO")
	fs.BoolVar(&o.watchList, "watch-list", false, "demo server streams the initial list (WatchList) instead of serving LIST pages")

	fs.BoolVar(&o.once, "once", false, "wait until every informer has synced, print one report and exit")
	fs.BoolVar(&o.json, "json", false, "with --once: print the report as JSON")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "with --once: how long to wait for the sync before reporting synced: false")
	fs.DurationVar(&o.duration, "duration", 0, "with --once: let the workload run this long after the sync before reporting")
	fs.DurationVar(&o.refresh, "refresh", 100*time.Millisecond, "dashboard refresh interval")
	fs.StringVar(&o.logFile, "log-file", "", "write client-go's log to this file (the dashboard hides it otherwise)")

	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to the kubeconfig file")
	fs.StringVar(&o.context, "context", "", "kubeconfig context to use")
	fs.StringVarP(&o.namespace, "namespace", "n", "", "namespace to watch")
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "watch every namespace")
	fs.StringVarP(&o.selector, "selector", "l", "", "label selector, e.g. app=web")
	fs.StringVar(&o.fieldSelector, "field-selector", "", "field selector, e.g. metadata.name=web-1")
	fs.StringSliceVarP(&o.resources, "resource", "r", nil, "resources to watch, e.g. pods,deployments.apps")
	fs.BoolVarP(&o.help, "help", "h", false, "show this help")
	// The cluster flags are parsed so that using one gets a clear answer,
	// but hidden from the help until the kube source exists.
	for _, name := range clusterFlags {
		_ = fs.MarkHidden(name)
	}
	return fs
}

// parseOptions reads args; the error is a sentence for the user.
func parseOptions(args []string, out io.Writer) (*options, *pflag.FlagSet, error) {
	o := &options{}
	fs := newFlagSet(o, out)
	if err := fs.Parse(args); err != nil {
		return nil, fs, fmt.Errorf("%v; run informtop --help for the flags", err)
	}
	if fs.NArg() > 0 {
		return nil, fs, fmt.Errorf("unexpected argument %q; run informtop --help for usage", fs.Arg(0))
	}
	if _, err := o.queueKind(); err != nil {
		return nil, fs, err
	}
	if o.json && !o.once {
		return nil, fs, errors.New("--json goes with --once: run informtop --once --json")
	}
	if o.timeout <= 0 {
		return nil, fs, errors.New("--timeout must be positive, e.g. --timeout 30s")
	}
	if o.duration < 0 {
		return nil, fs, errors.New("--duration must not be negative, e.g. --duration 5s")
	}
	if o.refresh < 10*time.Millisecond {
		return nil, fs, errors.New("--refresh must be at least 10ms, e.g. --refresh 100ms")
	}
	if o.rate < 0 {
		return nil, fs, errors.New("--rate must not be negative")
	}
	return o, fs, nil
}

func (o *options) queueKind() (engine.QueueKind, error) {
	switch strings.ToLower(o.queue) {
	case "realfifo", "real":
		return engine.RealFIFO, nil
	case "deltafifo", "delta":
		return engine.DeltaFIFO, nil
	}
	return 0, fmt.Errorf("unknown queue %q: use --queue RealFIFO or --queue DeltaFIFO", o.queue)
}

var clusterFlags = []string{"kubeconfig", "context", "namespace", "all-namespaces", "selector", "field-selector", "resource"}

// wantsCluster reports whether a flag only makes sense against a real cluster.
func (o *options) wantsCluster(fs *pflag.FlagSet) bool {
	for _, name := range clusterFlags {
		if fs.Changed(name) {
			return true
		}
	}
	return false
}
