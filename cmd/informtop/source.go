package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/demo"
	"github.com/informtop/informtop/kube"
	"github.com/informtop/informtop/source/local"
)

// chosen is the source picked and what only its maker knows about it.
type chosen struct {
	source.Source
	// inProcess is the source's informers when they run in this process
	// (the demo, a cluster): what a recording taps. nil otherwise.
	inProcess *local.Source
	// demo is the embedded demo when that is the source.
	demo *demo.Demo
	// kube is the cluster when that is the source: ":ctx" makes another.
	kube *kube.Source
	// scope is what a report says it covers.
	scope report.Scope
}

// chooseSource picks the source: the demo when asked for or when no
// kubeconfig exists (the header says which), a real cluster otherwise.
func chooseSource(ctx context.Context, o *options, fs *pflag.FlagSet) (chosen, error) {
	if !o.demo {
		path := defaultKubeconfig()
		explicitNoDemo := fs.Changed("demo")
		if path != "" || len(o.clusterFlagsSet(fs)) > 0 {
			ko, err := o.kubeOptions()
			if err != nil {
				return chosen{}, err
			}
			k, err := kube.New(ctx, ko)
			if err != nil {
				return chosen{}, err
			}
			sc := k.Scope()
			return chosen{Source: k, inProcess: k.Source, kube: k, scope: report.Scope{Context: sc.Context, Server: sc.Server,
				Namespace: sc.Namespace, AllNamespaces: sc.AllNamespaces, Selector: sc.LabelSelector}}, nil
		}
		if explicitNoDemo {
			return chosen{}, fmt.Errorf("no kubeconfig found (looked at %s); point --kubeconfig or KUBECONFIG at one, or drop --demo=false to run the embedded demo", strings.Join(kubeconfigPlaces(), ", "))
		}
	}
	var why source.Decoration
	if !o.demo {
		// Say in the header why the demo runs: a short mark on the title,
		// the whole sentence after the scenario's own notes (the first
		// note is the scenario's headline).
		why.Title = func(t string) string { return t + " (no kubeconfig found)" }
		why.Frame = func(f source.Frame) source.Frame {
			f.Notes = append(slices.Clip(f.Notes), "no kubeconfig found: showing the embedded demo cluster")
			return f
		}
	}
	kind, _ := o.queueKind()
	wl, _ := kube.ParseWatchList(o.watchList)
	d, err := demo.New(demo.Config{
		Scenario: o.scenario,
		Seed:     o.seed,
		Queue:    kind,
		Rate:     o.rate,
		List:     demoList(wl),
	})
	if err != nil {
		return chosen{}, err
	}
	if err := resolveRedactLocally(o.redactResources, d.Informers(), "the demo"); err != nil {
		return chosen{}, err
	}
	return chosen{Source: source.Decorate(d, why), inProcess: d.Source, demo: d}, nil
}

// defaultKubeconfig returns the first kubeconfig kubectl would load, or "".
func defaultKubeconfig() string {
	for _, p := range kubeconfigPlaces() {
		if _, err := os.Stat(p); err == nil {
			return filepath.Clean(p)
		}
	}
	return ""
}

// kubeconfigPlaces are where kubectl looks: every KUBECONFIG entry, else
// ~/.kube/config.
func kubeconfigPlaces() []string {
	var out []string
	for _, p := range clientcmd.NewDefaultClientConfigLoadingRules().GetLoadingPrecedence() {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func printScenarios(w io.Writer) {
	for _, s := range demo.Scenarios() {
		fmt.Fprintf(w, "%-18s %s\n", s.Name, s.Summary)
	}
}

// demoList is --watch-list for the demo: auto leaves the initial list to
// the scenario, which streams it unless it teaches LIST pages.
func demoList(wl kube.WatchList) demo.ListMode {
	switch wl {
	case kube.WatchListOn:
		return demo.ListStream
	case kube.WatchListOff:
		return demo.ListPages
	}
	return demo.ListAuto
}
