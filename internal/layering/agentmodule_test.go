package layering

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A controller on the oldest Kubernetes minor the agent supports adds the
// agent as a user would (the import, go get, go mod tidy): no version in
// its go.mod changes (none lifted, no go line raised), only the agent's
// own requirements join, and the agent brings none of the dashboard's
// modules into its module graph.
func TestAddingTheAgentChangesNothingElseInAControllersGoMod(t *testing.T) {
	if testing.Short() {
		t.Skip("resolves modules through the module proxy")
	}
	agentDir, err := filepath.Abs("../../agent")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, require, code, line string
	}{
		{
			name:    "controller-runtime v0.23 manager",
			require: "sigs.k8s.io/controller-runtime v0.23.1",
			code: `package main

import (
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	// AGENT-IMPORT
)

func main() {
	_, _ = ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{Cache: cache.Options{ /* AGENT-LINE */ }})
}
`,
			line: "NewInformer: agent.NewInformer(agent.NewSet())",
		},
		{
			name:    "client-go v0.35 controller",
			require: "k8s.io/client-go v0.35.0",
			code: `package main

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	// AGENT-IMPORT
)

func main() {
	factory := informers.NewSharedInformerFactory(kubernetes.NewForConfigOrDie(nil), 0)
	_ = appsv1.Deployment{}
	// AGENT-LINE
	_ = factory.Apps().V1().Deployments().Informer()
}
`,
			line: "factory.InformerFor(&appsv1.Deployment{}, agent.InformerFor(agent.NewSet(), &appsv1.Deployment{}))",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, text string) {
				t.Helper()
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("go.mod", "module example.com/controller\n\ngo 1.25.0\n\nrequire "+c.require+"\n")
			write("main.go", c.code)
			goCmd(t, dir, "mod", "tidy")
			before := requirements(t, dir)

			write("main.go", strings.NewReplacer(
				"// AGENT-IMPORT", `"github.com/informtop/informtop/agent"`,
				"/* AGENT-LINE */", c.line, "// AGENT-LINE", c.line).Replace(c.code))
			// go get of the published module, here the working tree's.
			goCmd(t, dir, "mod", "edit", "-require=github.com/informtop/informtop/agent@v0.0.0-00010101000000-000000000000",
				"-replace=github.com/informtop/informtop/agent="+agentDir)
			goCmd(t, dir, "mod", "tidy")
			goCmd(t, dir, "build", "./...")
			after := requirements(t, dir)

			for mod, v := range before {
				if after[mod] != v {
					t.Errorf("adding the agent changed %s %s to %q", mod, v, after[mod])
				}
			}
			// What the controller did not have yet are the agent's own
			// requirements (Prometheus' client, for a bare client-go one).
			own := requirements(t, agentDir)
			for mod, v := range after {
				if _, had := before[mod]; !had && mod != "github.com/informtop/informtop/agent" && own[mod] == "" {
					t.Errorf("adding the agent added %s %s to go.mod, which the agent's module does not require", mod, v)
				}
			}
			for line := range strings.Lines(goCmd(t, dir, "mod", "graph")) {
				from, to, _ := strings.Cut(strings.TrimSpace(line), " ")
				dashboard := strings.HasPrefix(to, "charm.land/") || strings.HasPrefix(to, "github.com/charmbracelet/") ||
					strings.HasPrefix(to, "github.com/sahilm/fuzzy") || strings.HasPrefix(to, "github.com/informtop/informtop@")
				if dashboard || strings.HasPrefix(from, "github.com/informtop/informtop/agent") && strings.HasPrefix(to, "github.com/spf13/cobra") {
					t.Errorf("the controller's module graph holds %s (required by %s)", to, from)
				}
			}
		})
	}
}

// goCmd runs go in dir as a user would (no workspace, no flags of ours)
// and returns its output.
func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// requirements are the module versions dir's go.mod requires, and its go
// line under "go".
func requirements(t *testing.T, dir string) map[string]string {
	t.Helper()
	var mod struct {
		Go      string
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal([]byte(goCmd(t, dir, "mod", "edit", "-json")), &mod); err != nil {
		t.Fatal(err)
	}
	reqs := map[string]string{"go": mod.Go}
	for _, r := range mod.Require {
		reqs[r.Path] = r.Version
	}
	return reqs
}
