package grafana

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// variables are the dashboard's filters, each narrowing the next: the
// Prometheus, then which controllers (cluster, job, namespace, pod,
// instance), then
// which informers, listeners and workqueues inside them.
func variables() []cog.Builder[dashboard.VariableModel] {
	return []cog.Builder[dashboard.VariableModel]{
		dashboard.NewDatasourceVariableBuilder("datasource").
			Label("Prometheus").Type("prometheus"),
		labelValues("cluster", "Cluster", mInformerSynced, "", "cluster",
			"The controllers' cluster, when the series carry a cluster label (a target or external label of a Prometheus, Thanos or Mimir holding several clusters); All matches series without it."),
		labelValues("job", "Job", mInformerSynced, `cluster=~"$cluster"`, "job",
			"Prometheus scrape job of the controllers serving the informtop agent."),
		labelValues("namespace", "Namespace", mInformerSynced, `cluster=~"$cluster", job=~"$job"`, "namespace",
			"Kubernetes namespace of the controller's pod, when service discovery sets the label; All matches series without it."),
		labelValues("pod", "Pod", mInformerSynced, `cluster=~"$cluster", job=~"$job", namespace=~"$namespace"`, "pod",
			"The controller's pod, when service discovery sets the label; All matches series without it."),
		labelValues("instance", "Instance", mInformerSynced, `cluster=~"$cluster", job=~"$job", namespace=~"$namespace", pod=~"$pod"`, "instance",
			"One controller process: the scraped address."),
		labelValues("informer", "Informer", mInformerSynced, target, "name",
			"Informer name as the agent reports it (usually the resource)."),
		labelValues("listener", "Listener", mLSynced, informer, "listener",
			"Event handler registration (AddEventHandler) on the chosen informers."),
		labelValues("workqueue", "Workqueue", "", fmt.Sprintf(`__name__=~"%s|%s", %s`, mWQDepth, clientGoWorkqueue(mWQDepth), target), "name",
			"Workqueue name (workqueue.TypedRateLimitingQueueConfig.Name), of the agent's provider or of client-go's own workqueue metrics (controller-runtime's)."),
	}
}

// labelValues is a multi-valued query variable over one label of metric,
// refreshed with the time range so controllers that come and go show up,
// All by default and sent as ".*" rather than a list of every value.
func labelValues(name, label, metric, matchers, labelName, description string) *dashboard.QueryVariableBuilder {
	q := fmt.Sprintf("label_values(%s, %s)", sel(metric, matchers), labelName)
	if matchers == "" {
		q = fmt.Sprintf("label_values(%s, %s)", metric, labelName)
	}
	all := dashboard.VariableOption{
		Selected: cog.ToPtr(true),
		Text:     dashboard.StringOrArrayOfString{ArrayOfString: []string{"All"}},
		Value:    dashboard.StringOrArrayOfString{ArrayOfString: []string{"$__all"}},
	}
	return dashboard.NewQueryVariableBuilder(name).
		Label(label).Description(description).
		Datasource(datasource).
		Query(dashboard.StringOrMap{String: cog.ToPtr(q)}).Definition(q).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Sort(dashboard.VariableSortAlphabeticalAsc).
		Multi(true).IncludeAll(true).AllValue(".*").Current(all)
}
