// Package grafana builds informtop's Grafana dashboard from Go: one
// dashboard over the series the agent exports on /metrics, as scraped by
// the Prometheus a platform team already runs. cmd/gen writes it to
// informtop.json (`make dashboard`); the package's test fails when the
// checked-in file differs from what Build makes, when a panel's query
// names a metric or label the agent does not export, or when a selector
// finds nothing in a real agent's scrape.
//
// It is a module of its own so that the root module, which users link
// into their controllers, never depends on the Grafana SDK.
package grafana
