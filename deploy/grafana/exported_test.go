package grafana

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// collectorFile declares, in its desc(...) calls, every series the agent
// exports and their labels.
const collectorFile = "../../agent/serve/collector.go"

// scrapeLabels are what Prometheus adds to every series it scrapes
// (job, instance), what Kubernetes service discovery usually relabels
// in (namespace, pod), or what names a cluster (a target or external
// label).
var scrapeLabels = []string{"cluster", "job", "instance", "namespace", "pod"}

// exported reads the agent's metric names and label names from
// collector.go: each desc("name", help, labels) call, labels being a
// []string literal or appends to one, as that file writes them.
func exported(t *testing.T) map[string][]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), collectorFile, nil, 0)
	if err != nil {
		t.Fatalf("reading the agent's metrics: %v", err)
	}
	vars := map[string]ast.Expr{}
	var calls []*ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if i < len(n.Values) {
					vars[name.Name] = n.Values[i]
				}
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "desc" && len(n.Args) == 3 {
				calls = append(calls, n)
			}
		}
		return true
	})
	var labels func(e ast.Expr) []string
	labels = func(e ast.Expr) []string {
		switch e := e.(type) {
		case *ast.Ident:
			v, ok := vars[e.Name]
			if !ok {
				t.Fatalf("%s: labels %s not declared in that file", collectorFile, e.Name)
			}
			return labels(v)
		case *ast.CompositeLit:
			var out []string
			for _, el := range e.Elts {
				out = append(out, str(t, el))
			}
			return out
		case *ast.CallExpr:
			if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "append" {
				out := labels(e.Args[0])
				for _, a := range e.Args[1:] {
					if e.Ellipsis.IsValid() {
						out = append(out, labels(a)...)
					} else {
						out = append(out, str(t, a))
					}
				}
				return out
			}
			// []string(nil)
			return nil
		}
		t.Fatalf("%s: cannot read labels from %T", collectorFile, e)
		return nil
	}
	out := map[string][]string{}
	add := func(name string, ls []string) {
		// The agent's histograms are its *_duration_seconds series:
		// Prometheus stores each as _bucket (with le), _sum and _count.
		if strings.HasSuffix(name, "_duration_seconds") {
			out[name+"_bucket"] = append(slices.Clone(ls), "le")
			out[name+"_sum"], out[name+"_count"] = ls, ls
			return
		}
		out[name] = ls
	}
	for _, c := range calls {
		name, ls := str(t, c.Args[0]), append(labels(c.Args[2]), scrapeLabels...)
		add(name, ls)
		if strings.HasPrefix(name, "informtop_workqueue_") {
			// client-go's own workqueue metrics, as controller-runtime
			// exports them (name and controller).
			add(clientGoWorkqueue(name), append([]string{"name", "controller"}, scrapeLabels...))
		}
	}
	if len(out) < 20 {
		t.Fatalf("%s declares only %d metrics (%v): has the agent changed how it declares them?", collectorFile, len(out), out)
	}
	return out
}

func str(t *testing.T, e ast.Expr) string {
	t.Helper()
	if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
		s, err := strconv.Unquote(lit.Value)
		if err == nil {
			return s
		}
	}
	t.Fatalf("%s: expected a string literal, found %T", collectorFile, e)
	return ""
}
