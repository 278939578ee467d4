// Package prometheus holds informtop's Prometheus rules and their tests:
// informtop.rules.yaml, a plain rules file, is the source, and
// informtop.prometheusrule.yaml, the same groups as a prometheus-operator
// PrometheusRule, is generated from it by `make rules` (go generate here).
// The tests check both with promtool, test the alerts on series shaped
// from a real scrape of the example controller, and watch a real
// Prometheus fire the stall alert.
package prometheus

//go:generate go run ./gen
