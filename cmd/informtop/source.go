package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informtop/informtop/demo"
	"github.com/informtop/informtop/tui"
)

// source is what the dashboard and --once need from a data source.
type source interface {
	tui.Source
	// Run drives the source until ctx is done; it returns once everything
	// it started has stopped.
	Run(ctx context.Context)
	// WaitSynced returns nil once every informer and handler has synced.
	WaitSynced(ctx context.Context) error
}

// chooseSource picks the demo unless a cluster was asked for.
func chooseSource(o *options, fs *pflag.FlagSet) (source, error) {
	if !o.demo && o.wantsCluster(fs) {
		return nil, errors.New("connecting to a real cluster is not built yet; run informtop --demo to use the embedded demo cluster")
	}
	var why withNotes
	if !o.demo {
		if path := defaultKubeconfig(); path != "" {
			why.titleMark = " (kubeconfig found, cluster support not built yet)"
			why.extra = []string{"a kubeconfig exists at " + path + ", but connecting to clusters is not built yet: showing the embedded demo cluster"}
		} else {
			why.titleMark = " (no kubeconfig found)"
			why.extra = []string{"no kubeconfig found: showing the embedded demo cluster"}
		}
	}
	kind, _ := o.queueKind()
	d, err := demo.New(demo.Config{
		Scenario:  o.scenario,
		Seed:      o.seed,
		Queue:     kind,
		Rate:      o.rate,
		WatchList: o.watchList,
	})
	if err != nil {
		return nil, err
	}
	why.demoSource = d
	return why, nil
}

type demoSource = *demo.Demo

// withNotes says in the header why the demo is running: a short mark on the
// title, and the full sentence after the scenario's own notes (the first
// note is the scenario's headline).
type withNotes struct {
	demoSource
	titleMark string
	extra     []string
}

func (w withNotes) Title() string { return w.demoSource.Title() + w.titleMark }

func (w withNotes) Notes() []string { return slices.Concat(w.demoSource.Notes(), w.extra) }

// defaultKubeconfig returns the kubeconfig kubectl would load, or "".
func defaultKubeconfig() string {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	for _, p := range rules.GetLoadingPrecedence() {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return filepath.Clean(p)
		}
	}
	return ""
}

func printScenarios(w io.Writer) {
	for _, s := range demo.Scenarios() {
		fmt.Fprintf(w, "%-18s %s\n", s.Name, s.Summary)
	}
}
