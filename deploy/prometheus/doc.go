// Package prometheus holds informtop's Prometheus rules and their tests:
// informtop.rules.yaml, a plain rules file, is the source, and
// informtop.prometheusrule.yaml, the same groups as a prometheus-operator
// PrometheusRule, is generated from it by `make rules` (go generate here;
// with RUNBOOK_URL, both files on a team's own runbook). The tests check
// both with promtool, run the shipped `promtool test rules` file
// (tests/informtop.rules.test.yaml) and hold its series to a real scrape
// of the example controller, watch a real Prometheus fire the stall
// alert, and check the rollout manifests of deploy/scrape (that they
// select the example Deployment among them) and the
// Alertmanager inhibition of deploy/alertmanager.
package prometheus

//go:generate go run ./gen
