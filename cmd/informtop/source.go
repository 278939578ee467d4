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

	"github.com/informtop/informtop/demo"
	"github.com/informtop/informtop/kube"
	"github.com/informtop/informtop/source"
)

// chooseSource picks the source: the demo when asked for or when no
// kubeconfig exists (the header says which), a real cluster otherwise.
func chooseSource(ctx context.Context, o *options, fs *pflag.FlagSet) (source.Source, error) {
	if !o.demo {
		path := defaultKubeconfig()
		explicitNoDemo := fs.Changed("demo")
		if path != "" || len(o.clusterFlagsSet(fs)) > 0 {
			ko, err := o.kubeOptions()
			if err != nil {
				return nil, err
			}
			return kube.New(ctx, ko)
		}
		if explicitNoDemo {
			return nil, fmt.Errorf("no kubeconfig found (looked at %s); point --kubeconfig or KUBECONFIG at one, or drop --demo=false to run the embedded demo", strings.Join(kubeconfigPlaces(), ", "))
		}
	}
	var why withNotes
	if !o.demo {
		why.titleMark = " (no kubeconfig found)"
		why.extra = []string{"no kubeconfig found: showing the embedded demo cluster"}
	}
	kind, _ := o.queueKind()
	wl, _ := kube.ParseWatchList(o.watchList)
	d, err := demo.New(demo.Config{
		Scenario:  o.scenario,
		Seed:      o.seed,
		Queue:     kind,
		Rate:      o.rate,
		WatchList: wl == kube.WatchListOn,
	})
	if err != nil {
		return nil, err
	}
	why.Demo = d
	return why, nil
}

// withNotes says in the header why the demo is running: a short mark on the
// title, and the full sentence after the scenario's own notes (the first
// note is the scenario's headline). Embedding keeps every capability of
// the demo visible to the dashboard.
type withNotes struct {
	*demo.Demo
	titleMark string
	extra     []string
}

func (w withNotes) Title() string { return w.Demo.Title() + w.titleMark }

func (w withNotes) Pull(cursor uint64, maxEvents int) source.Frame {
	f := w.Demo.Pull(cursor, maxEvents)
	f.Notes = slices.Concat(f.Notes, w.extra)
	return f
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
