package main

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/source"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/informtop/informtop/demo"
	"github.com/informtop/informtop/kube"
)

// options are the command line of the dashboard and of --once, kept apart
// from the code that acts on them.
type options struct {
	version   bool // --version: print the versions and exit
	demo      bool
	scenario  string
	seed      int64
	rate      float64
	queue     string
	watchList string

	once     bool
	json     bool
	timeout  time.Duration
	duration time.Duration
	// failOnStall: --once exits 5 when a handler is in one callback longer; 0 never.
	failOnStall time.Duration
	refresh     time.Duration
	logFile     string
	// verbosity is klog's -v for --log-file.
	verbosity int
	// redactResources and redactAnnotations add to what every output
	// redacts (secrets and the known whole-object annotations always).
	redactResources   []string
	redactAnnotations []string
	// progress is --once's status line on a terminal's stderr.
	progress progress
	// scope is what --once's report says it covers, set once the source
	// is chosen (a cluster's context and namespace, an agent's address).
	scope report.Scope
	// fleetAttach is how fleet's Enter reaches a process's agent.
	fleetAttach fleetAttach

	// kubectl's connection flags, and informtop's own cluster flags.
	kubeFlags          *genericclioptions.ConfigFlags
	allNamespaces      bool
	selector           string
	fieldSelector      string
	resources          []string
	metadataOnly       bool
	keepManagedFields  bool
	stripLastApplied   bool
	pageSize           int64
	listeners          []string
	verify             bool
	serverMetrics      bool
	serverMetricsEvery time.Duration
}

func newOptions() *options {
	return &options{kubeFlags: genericclioptions.NewConfigFlags(true), progress: defaultProgress}
}

// addFlags registers every flag of the root command on fs.
func (o *options) addFlags(fs *pflag.FlagSet) {
	fs.SortFlags = false
	fs.BoolVar(&o.demo, "demo", false, "run on the embedded demo cluster (the default when no kubeconfig is found)")
	fs.StringVar(&o.scenario, "scenario", "steady", "demo scenario to run (informtop scenarios lists them)")
	fs.Int64Var(&o.seed, "seed", 1, "demo workload seed: the same seed replays the same run")
	fs.Float64Var(&o.rate, "rate", 0, fmt.Sprintf("demo workload rate in changes per second, at most %d (0: the scenario's own)", demo.MaxRate))
	o.queue, o.watchList = "RealFIFO", "auto"
	fs.Var(queueChoice(&o.queue), "queue", "queue between reflector and indexer: RealFIFO (client-go's default) or DeltaFIFO")
	fs.Var(watchListChoice(&o.watchList), "watch-list", "initial list streamed as a watch (WatchList): auto (client-go's choice; the demo streams, as v0.37 does against v1.37, except where a scenario teaches LIST pages), on or off; bare --watch-list means on")
	// A bare --watch-list, as the README writes it, means on.
	fs.Lookup("watch-list").NoOptDefVal = "on"

	fs.BoolVar(&o.once, "once", false, "wait until every informer has synced, print one report and exit")
	fs.BoolVar(&o.json, "json", false, "with --once: print the report as JSON")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "with --once: how long to wait for the sync (and the first read of the API server's figures) before reporting synced: false")
	fs.DurationVar(&o.duration, "duration", 0, "with --once: let the workload run this long after the sync before reporting (a demo scenario without it: until its script ends)")
	fs.DurationVar(&o.failOnStall, "fail-on-stall", 0, "with --once: exit 5 when a handler has been in one callback longer than this, e.g. 30s (0: never)")
	fs.DurationVar(&o.refresh, "refresh", 100*time.Millisecond, "dashboard refresh interval")
	o.addLogFlags(fs, "write client-go's log to this file (the dashboard hides it otherwise)")

	fs.StringSliceVarP(&o.resources, "resource", "r", nil, "resources to watch as kubectl names them, e.g. pods,deploy,deployments.apps,<crd> (default pods)")
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "watch every namespace")
	fs.StringVarP(&o.selector, "selector", "l", "", "label selector, e.g. app=web")
	fs.StringVar(&o.fieldSelector, "field-selector", "", "field selector, e.g. metadata.name=web-1")
	fs.BoolVar(&o.metadataOnly, "metadata-only", false, "cache only each object's metadata (PartialObjectMetadata)")
	fs.BoolVar(&o.keepManagedFields, "keep-managed-fields", false, "keep metadata.managedFields in the cache (stripped by default)")
	fs.BoolVar(&o.stripLastApplied, "strip-last-applied", false, "drop the kubectl.kubernetes.io/last-applied-configuration annotation from cached objects")
	fs.Int64Var(&o.pageSize, "page-size", 0, "page the initial LIST in pages of N (0: as client-go does)")
	fs.StringArrayVar(&o.listeners, "listener", nil, "add a simulated handler NAME=DELAY to every informer, e.g. slow=20ms (repeatable)")
	fs.BoolVar(&o.serverMetrics, "server-metrics", true, "read the API server's /metrics, while the Pipeline view shows it or a report waits for it, to show its watch cache beside each informer (needs get on /metrics)")
	fs.DurationVar(&o.serverMetricsEvery, "server-metrics-every", kube.DefaultServerMetricsEvery, "the least time between two reads of the API server's /metrics: each costs the server half a megabyte of text and tens of milliseconds of CPU")
	fs.BoolVar(&o.verify, "verify", false, "with --once: compare each informer's cache with the API server, key by key (LIST only); exit 3 when one differs, 4 when one could not be compared (a check not made)")
	o.kubeFlags.AddFlags(fs)

	expect(fs, "seed", "a whole number, e.g. 42")
	expect(fs, "rate", "a number of changes per second, e.g. 50")
	expect(fs, "queue", "RealFIFO or DeltaFIFO")
	expect(fs, "watch-list", "auto, on or off")
	expect(fs, "page-size", "a whole number of objects per page, e.g. 500")
	o.expectCommon(fs)
}

// addLogFlags registers --log-file and -v, shared by the root command and
// attach, and the redaction flags, since the log is an output too.
func (o *options) addLogFlags(fs *pflag.FlagSet, usage string) {
	fs.StringVar(&o.logFile, "log-file", "", usage)
	fs.IntVarP(&o.verbosity, "v", "v", 0, "client-go's log verbosity in --log-file, as kubectl's -v: 0 records failed watches, 2 cache syncs, 4 watch closes and backoffs, 6 every request, 8 bodies (redacted)")
	fs.StringSliceVar(&o.redactResources, "redact", nil, "also hide every value but the metadata of these resources' objects, on screen and in every output; named as -r takes them, e.g. sealedsecrets.bitnami.com, sealedsecret or SealedSecret (secrets always are)")
	fs.StringSliceVar(&o.redactAnnotations, "redact-annotation", nil, "also treat these annotations as copies of a whole object, hidden on secret objects, e.g. example.com/original (kubectl's last-applied, kapp's and wrangler's always are)")
}

// expectCommon says what the flags the root command and attach share take.
func (o *options) expectCommon(fs *pflag.FlagSet) {
	expect(fs, "timeout", "a duration such as 30s or 2m")
	expect(fs, "duration", "a duration such as 5s or 1m")
	expect(fs, "fail-on-stall", "a duration such as 30s or 2m")
	expect(fs, "refresh", "a duration such as 100ms or 1s")
	expect(fs, "v", "a verbosity level from 0 to 10, e.g. 4")
}

func queueChoice(p *string) *choiceValue {
	return &choiceValue{p: p, check: func(s string) error {
		var k source.QueueKind
		return k.UnmarshalText([]byte(s))
	}, choices: []string{"RealFIFO\tclient-go's default: one item per event", "DeltaFIFO\tthe classic queue: deltas coalesced per key"}}
}

func watchListChoice(p *string) *choiceValue {
	return &choiceValue{p: p, check: func(s string) error {
		_, err := kube.ParseWatchList(s)
		return err
	}, choices: []string{"auto\tclient-go's choice", "on\tstream the initial list as a watch", "off\tlist in pages"}}
}

// validateCommon checks the flags every source shares.
func (o *options) validateCommon() error {
	if o.json && !o.once {
		return errors.New("--json goes with --once: run informtop --once --json")
	}
	if o.timeout <= 0 {
		return errors.New("--timeout must be positive, e.g. --timeout 30s")
	}
	if o.duration < 0 {
		return errors.New("--duration must not be negative, e.g. --duration 5s")
	}
	if o.failOnStall < 0 {
		return errors.New("--fail-on-stall must not be negative, e.g. --fail-on-stall 30s")
	}
	if o.failOnStall > 0 && !o.once {
		return errors.New("--fail-on-stall goes with --once: run informtop --once --fail-on-stall 30s")
	}
	if o.refresh < 10*time.Millisecond {
		return errors.New("--refresh must be at least 10ms, e.g. --refresh 100ms")
	}
	if o.verbosity < 0 || o.verbosity > 10 {
		return fmt.Errorf("-v %d is out of range: client-go logs at levels 0 to 10, e.g. -v 4", o.verbosity)
	}
	if o.verbosity > 0 && o.logFile == "" {
		return errors.New("-v sets how much of client-go's log goes to --log-file, and the dashboard never prints that log: add --log-file PATH, e.g. --log-file client-go.log")
	}
	return nil
}

// validate checks what flags alone can tell; errors are sentences.
func (o *options) validate(fs *pflag.FlagSet) error {
	if _, err := o.queueKind(); err != nil {
		return err
	}
	if _, err := kube.ParseWatchList(o.watchList); err != nil {
		return err
	}
	if err := o.validateCommon(); err != nil {
		return err
	}
	if o.verify && !o.once {
		return errors.New("--verify goes with --once: run informtop --once --verify (in the dashboard, press v on an informer)")
	}
	switch {
	case math.IsNaN(o.rate):
		return errors.New("--rate must be a number of changes per second, e.g. --rate 50")
	case o.rate < 0:
		return errors.New("--rate must not be negative")
	case o.rate > demo.MaxRate:
		return fmt.Errorf("--rate %g is more than the demo can apply: at most %d changes per second, e.g. --rate %d", o.rate, demo.MaxRate, demo.MaxRate)
	}
	if o.pageSize < 0 {
		return errors.New("--page-size must not be negative")
	}
	for _, l := range o.listeners {
		if _, err := kube.ParseListener(l); err != nil {
			return err
		}
	}
	if o.demo {
		if names := o.clusterFlagsSet(fs); len(names) > 0 {
			return fmt.Errorf("--%s goes with a real cluster, not --demo; drop --demo to connect to one", names[0])
		}
	}
	return nil
}

func (o *options) queueKind() (source.QueueKind, error) {
	var k source.QueueKind
	if err := k.UnmarshalText([]byte(o.queue)); err != nil {
		return 0, fmt.Errorf("%v, e.g. --queue DeltaFIFO", err)
	}
	return k, nil
}

// shared are the flags of the demo and of every source; all others are
// cluster flags.
var shared = map[string]bool{
	"demo": true, "scenario": true, "seed": true, "rate": true, "queue": true, "watch-list": true,
	"once": true, "json": true, "timeout": true, "duration": true, "fail-on-stall": true, "refresh": true, "log-file": true, "v": true, "help": true,
	"redact": true, "redact-annotation": true,
	"output": true, "headless": true, "force": true, // informtop record
	"version": true,
}

// clusterFlagsSet names the cluster flags given on the command line.
func (o *options) clusterFlagsSet(fs *pflag.FlagSet) []string {
	var names []string
	fs.Visit(func(f *pflag.Flag) {
		if !shared[f.Name] {
			names = append(names, f.Name)
		}
	})
	return names
}

// kubeOptions turns the flags into the kube source's options.
func (o *options) kubeOptions() (kube.Options, error) {
	q, err := o.queueKind()
	if err != nil {
		return kube.Options{}, err
	}
	wl, err := kube.ParseWatchList(o.watchList)
	if err != nil {
		return kube.Options{}, err
	}
	ko := kube.Options{
		Flags: o.kubeFlags, Resources: o.resources, AllNamespaces: o.allNamespaces,
		LabelSelector: o.selector, FieldSelector: o.fieldSelector,
		NoServerMetrics:    !o.serverMetrics,
		ServerMetricsEvery: o.serverMetricsEvery,
		MetadataOnly:       o.metadataOnly, KeepManagedFields: o.keepManagedFields, StripLastApplied: o.stripLastApplied,
		PageSize: o.pageSize, WatchList: wl, Queue: q, Redact: o.redactResources,
	}
	for _, l := range o.listeners {
		spec, err := kube.ParseListener(l)
		if err != nil {
			return kube.Options{}, err
		}
		ko.Listeners = append(ko.Listeners, spec)
	}
	if t := o.kubeFlags.Timeout; t != nil && *t != "" && *t != "0" {
		d, err := time.ParseDuration(*t)
		if err != nil {
			return kube.Options{}, fmt.Errorf("--request-timeout %q is not a duration such as 30s", *t)
		}
		ko.AccessTimeout = d
	}
	return ko, nil
}
