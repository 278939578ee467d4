package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
	var notes []string
	if !o.demo {
		if path := defaultKubeconfig(); path != "" {
			notes = append(notes, "a kubeconfig exists at "+path+", but connecting to clusters is not built yet: showing the embedded demo cluster")
		} else {
			notes = append(notes, "no kubeconfig found: showing the embedded demo cluster")
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
	return withNotes{demoSource: d, extra: notes}, nil
}

type demoSource = *demo.Demo

// withNotes adds the reason the demo is running to the source's notes.
type withNotes struct {
	demoSource
	extra []string
}

func (w withNotes) Notes() []string {
	return append(append([]string{}, w.extra...), w.demoSource.Notes()...)
}

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
