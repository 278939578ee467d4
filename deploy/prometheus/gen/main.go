// Command gen writes informtop.prometheusrule.yaml from informtop.rules.yaml
// in the current directory (go generate runs it in deploy/prometheus).
package main

import (
	"fmt"
	"os"

	"github.com/informtop/informtop/deploy/prometheus"
)

func main() {
	rules, err := os.ReadFile(prometheus.RulesFile)
	if err != nil {
		fail(fmt.Errorf("could not read the rules (run this in deploy/prometheus, as `make rules` does): %w", err))
	}
	out, err := prometheus.PrometheusRule(rules)
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(prometheus.OperatorFile, out, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
