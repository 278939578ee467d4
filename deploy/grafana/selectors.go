package grafana

import "fmt"

// Label matchers every query carries, built from the dashboard's
// variables. Each variable is multi-valued with ".*" for All, so a
// matcher on a label the series lack (namespace and pod outside
// Kubernetes service discovery) still matches.
const (
	// target picks the scraped processes: the controllers.
	target = `cluster=~"$cluster", job=~"$job", namespace=~"$namespace", pod=~"$pod", instance=~"$instance"`
	// informer picks informers within them.
	informer = target + `, name=~"$informer"`
	// listener picks handler registrations within those informers.
	listener = informer + `, listener=~"$listener"`
	// workqueue picks workqueues; their name label is the queue's name,
	// not an informer's, hence a variable of its own.
	workqueue = target + `, name=~"$workqueue"`
)

// Legends, most specific last; the cluster, pod and instance tell
// controllers apart when several are selected, the pod as the alerts name
// it (an absent cluster or pod label prints as nothing).
const (
	legendInformer  = "{{cluster}} {{pod}} {{instance}} {{name}}"
	legendListener  = "{{cluster}} {{pod}} {{instance}} {{name}} {{listener}}"
	legendWorkqueue = "{{cluster}} {{pod}} {{instance}} {{name}}"
)

// sel is metric{matchers}.
func sel(metric, matchers string) string {
	return fmt.Sprintf("%s{%s}", metric, matchers)
}

// rate is the per-second rate of a counter over Grafana's rate interval,
// which stays at least four scrape intervals wide at any zoom.
func rate(metric, matchers string) string {
	return fmt.Sprintf("rate(%s[$__rate_interval])", sel(metric, matchers))
}
