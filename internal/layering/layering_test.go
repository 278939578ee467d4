package layering

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/informtop/informtop"

// layer is what a package is for; the rules below are per layer.
type layer string

const (
	engineLayer  layer = "the engine (drop-in for client-go's informer)"
	modelLayer   layer = "the data model and what reads only it"
	adapterLayer layer = "the engine's one adapter to the model"
	agentLayer   layer = "the agent inside a user's controller"
	inProcess    layer = "sources running informers in this process"
	remoteLayer  layer = "sources reading informers elsewhere"
	uiLayer      layer = "the dashboard"
	cmdLayer     layer = "the command"
	tapLayer     layer = "the recording of informers running in this process"
	toolLayer    layer = "test and benchmark tooling"

	// promLayer reads informtop's series from Prometheus: its client, not
	// the agent's.
	promLayer layer = "sources reading Prometheus"
	// pprofLayer reads a controller without the agent: its goroutine
	// dumps and its metrics' text, never the agent's wire.
	pprofLayer layer = "sources reading a process's pprof and metrics"
)

// layers places every package of the module. A package missing here
// fails TestEveryPackageHasALayer: a new package states where it belongs.
var layers = map[string]layer{
	"engine": engineLayer, "engine/fifo": engineLayer, "engine/indexer": engineLayer,
	"engine/processor": engineLayer,

	// The agent's module: the model, the instrumentation vocabulary the
	// engine and the agent share, and the helpers both sides use.
	"agent/source": modelLayer, "agent/source/sourcetest": modelLayer, "agent/verify": modelLayer, "agent/report": modelLayer,
	"agent/redact": modelLayer, "agent/api": modelLayer, "agent/instr": modelLayer, "agent/pipeline": modelLayer,
	"agent/shared/say": modelLayer, "agent/shared/humanize": modelLayer, "agent/shared/termsafe": modelLayer,
	"agent/shared/jsondiff": modelLayer, "agent/shared/fill": modelLayer, "agent/shared/smallfile": modelLayer,
	"agent/shared/tokenfile": modelLayer,
	"agent":                  agentLayer, "agent/serve": agentLayer, "agent/serve/servetest": toolLayer,

	"recording":        tapLayer,
	"internal/safeurl": modelLayer, "internal/wirekeep": modelLayer, "internal/hostile": modelLayer,
	"internal/ownerfile": modelLayer, "internal/polling": modelLayer,

	"source/local": adapterLayer,
	// engineserve serves engine informers through the agent's endpoint.
	"internal/engineserve": agentLayer,

	"demo": inProcess, "demo/cluster": inProcess, "kube": inProcess, "replay": inProcess,
	"attach": remoteLayer, "attach/tunnel": remoteLayer,
	"attach/pprof": pprofLayer,

	"source/fleet": promLayer,

	"tui":           uiLayer,
	"cmd/informtop": cmdLayer,

	"internal/benchrun": toolLayer, "agent/shared/benchlw": toolLayer, "internal/benchratio": toolLayer,
	"internal/benchwire": toolLayer, "internal/childproc": toolLayer, "internal/examplectl": toolLayer,
	"internal/kubetest": toolLayer, "internal/kwoktest": toolLayer, "internal/layering": toolLayer,
	"internal/promtest": toolLayer, "deploy/prometheus": toolLayer, "deploy/prometheus/gen": toolLayer,
	"agent/shared/waitfor": toolLayer,
	"internal/fmtmeasure":  toolLayer,
}

// floors stack the layers into a house: a package imports only packages
// on its own floor or below (TestNoArrowRunsBackUp), and
// docs/architecture.md draws the house from this table and layers
// (TestArchitectureDrawsTheHouse). The vocabulary, the model and its
// helpers are the ground floor the engine also stands on; test and
// benchmark tooling is the roof, above everything it exercises.
var floors = map[layer]int{
	modelLayer: 1, engineLayer: 1,
	adapterLayer: 2, agentLayer: 2,
	tapLayer:  3,
	inProcess: 4, remoteLayer: 4, promLayer: 4, pprofLayer: 4,
	uiLayer:   5,
	cmdLayer:  6,
	toolLayer: 7,
}

// pkg is one package's imports (direct) and dependencies (all).
type pkg struct{ imports, deps []string }

func packages(t *testing.T) map[string]pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \",\"}}|{{join .Deps \",\"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string]pkg{}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.Split(strings.TrimSpace(line), "|")
		name, ok := strings.CutPrefix(f[0], module+"/")
		if !ok {
			continue
		}
		m[name] = pkg{imports: ours(f[1]), deps: ours(f[2])}
	}
	return m
}

// ours keeps this module's packages of a comma-separated list, relative,
// plus the third-party ones the rules name.
func ours(list string) []string {
	var out []string
	for p := range strings.SplitSeq(list, ",") {
		if rel, ok := strings.CutPrefix(p, module+"/"); ok {
			out = append(out, rel)
		} else if strings.HasPrefix(p, "charm.land/") || strings.HasPrefix(p, "github.com/prometheus/") ||
			strings.HasPrefix(p, "k8s.io/kubernetes") || strings.HasPrefix(p, "go.etcd.io/etcd/server") || strings.HasPrefix(p, "github.com/google/go-cmp") {
			out = append(out, p)
		}
	}
	return out
}

func isEngine(p string) bool { return p == "engine" || strings.HasPrefix(p, "engine/") }

func TestEveryPackageHasALayer(t *testing.T) {
	for name := range packages(t) {
		if _, ok := layers[name]; !ok {
			t.Errorf("package %s has no layer: add it to layers in internal/layering, where the rules say what it may import", name)
		}
	}
}

// The rules, per layer, on non-test imports.
func TestImportsRunOneWay(t *testing.T) {
	all := packages(t)
	for name, p := range all {
		l := layers[name]
		for _, d := range p.deps {
			switch {
			case strings.HasPrefix(d, "charm.land/") && l != uiLayer && l != cmdLayer:
				t.Errorf("%s (%s) depends on %s: only the dashboard and the command draw", name, l, d)
			case d == "tui" && l != cmdLayer:
				t.Errorf("%s depends on the dashboard: nothing but the command may", name)
			case d == "cmd/informtop":
				t.Errorf("%s depends on the command", name)
			case isEngine(d) && (l == modelLayer || l == uiLayer || l == remoteLayer || l == promLayer || l == pprofLayer):
				t.Errorf("%s (%s) depends on %s: it must read the data model only, which any source fills without an engine", name, l, d)
			case l == remoteLayer && (d == "agent" || d == "agent/serve" || strings.HasPrefix(d, "github.com/prometheus/")):
				t.Errorf("%s depends on %s: a client of the agent must not link the agent's server side", name, d)
			case l == promLayer && (d == "agent" || d == "attach"):
				t.Errorf("%s depends on %s: it reads Prometheus, not agents", name, d)
			case l == pprofLayer && (d == "agent" || d == "attach" || d == "agent/api"):
				t.Errorf("%s depends on %s: it reads goroutine dumps and metrics, not agents", name, d)
			case strings.HasPrefix(d, "github.com/google/go-cmp") && l != toolLayer:
				t.Errorf("%s depends on go-cmp: a test helper must not reach what users link", name)
			case (strings.HasPrefix(d, "k8s.io/kubernetes") || strings.HasPrefix(d, "go.etcd.io/etcd/server")) && l != toolLayer:
				t.Errorf("%s depends on %s: the API server's own code belongs to the test harness", name, d)
			}
		}
		for _, d := range p.imports {
			if _, local := layers[d]; !local && !isEngine(d) && !strings.HasPrefix(d, "github.com/prometheus/") {
				continue // a third-party package: the dependency rules above cover those that matter
			}
			switch {
			case d == "internal/examplectl":
				t.Errorf("%s imports internal/examplectl outside its tests: it runs the examples for tests, and users never link it", name)
			case isEngine(d) && !(l == engineLayer || l == adapterLayer || l == agentLayer || l == toolLayer):
				t.Errorf("%s (%s) imports %s: only the engine's adapter (source/local) and the agent speak the engine", name, l, d)
			case l == engineLayer && !isEngine(d) && d != "agent/shared/jsondiff" && d != "agent/instr" && d != "agent/pipeline":
				t.Errorf("the engine imports %s: it is a drop-in for client-go and knows nothing of informtop above it", d)
			case l == modelLayer && layers[d] != modelLayer:
				t.Errorf("%s (%s) imports %s (%s): the contract must not know its implementations", name, l, d, layers[d])
			case l == uiLayer && layers[d] != modelLayer:
				t.Errorf("the dashboard imports %s (%s): it sees sources only through package source", d, layers[d])
			case l == remoteLayer && (d == "agent" || strings.HasPrefix(d, "github.com/prometheus/")):
				t.Errorf("%s imports %s: a client of the agent must not link the agent's server side", name, d)
			}
		}
	}
}

// No arrow runs back up: every non-test import goes to the importer's own
// floor or one below, so reading the house from the ground up, each
// floor needs only what is under it.
func TestNoArrowRunsBackUp(t *testing.T) {
	for name, p := range packages(t) {
		from, ok := floors[layers[name]]
		if !ok {
			t.Errorf("%s's layer %q has no floor: add it to floors", name, layers[name])
			continue
		}
		for _, d := range p.imports {
			l, ours := layers[d]
			if !ours {
				continue
			}
			if to := floors[l]; to > from {
				t.Errorf("%s (floor %d, %s) imports %s (floor %d, %s): an arrow back up; move what it needs down", name, from, layers[name], d, to, l)
			}
		}
	}
	for _, l := range []layer{engineLayer, modelLayer, adapterLayer, agentLayer, inProcess, remoteLayer, uiLayer, cmdLayer, tapLayer, toolLayer, promLayer, pprofLayer} {
		if _, ok := floors[l]; !ok {
			t.Errorf("layer %q has no floor", l)
		}
	}
}
