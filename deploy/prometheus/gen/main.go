// Command gen writes informtop.prometheusrule.yaml from informtop.rules.yaml
// in the current directory (go generate runs it in deploy/prometheus).
//
// With -runbook-url PAGE it writes both files into -o DIR instead, every
// alert's runbook_url on PAGE (a team's own runbook): `make rules
// RUNBOOK_URL=https://wiki.example/informtop/runbook` runs it so.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/informtop/informtop/deploy/prometheus"
)

func main() {
	page := flag.String("runbook-url", "", "the runbook page every alert's runbook_url links to, its section's #anchor added (default: informtop's docs/runbook.md)")
	dir := flag.String("o", "", "with -runbook-url: the directory both files are written to")
	flag.Parse()
	rules, err := os.ReadFile(prometheus.RulesFile)
	if err != nil {
		fail(fmt.Errorf("could not read the rules (run this in deploy/prometheus, as `make rules` does): %w", err))
	}
	out := "."
	if *page != "" {
		if *dir == "" {
			fail(fmt.Errorf("-runbook-url needs -o DIR (make rules RUNBOOK_URL=... RULES_OUT=DIR): the repository's files keep informtop's runbook"))
		}
		if rules, err = prometheus.WithRunbook(rules, *page); err != nil {
			fail(err)
		}
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(filepath.Join(*dir, prometheus.RulesFile), rules, 0o644); err != nil {
			fail(err)
		}
		out = *dir
	}
	cr, err := prometheus.PrometheusRule(rules)
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(out, prometheus.OperatorFile), cr, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
