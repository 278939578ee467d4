package kube

import (
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
)

// ResourceNames lists the resources the server behind flags serves that an
// informer can list and watch, named as `kubectl api-resources -o name`
// names them (pods, deployments.apps), for shell completion of -r.
// Discovery uses kubectl's disk cache, and every request is bounded by
// timeout, so a completion never hangs on a server that does not answer.
func ResourceNames(flags *genericclioptions.ConfigFlags, timeout time.Duration) ([]string, error) {
	flags.WithWrapConfigFn(func(c *rest.Config) *rest.Config {
		c.Timeout = timeout
		return c
	})
	disco, err := flags.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	// A partial answer (one group failing) still completes the rest.
	lists, err := disco.ServerPreferredResources()
	if len(lists) == 0 && err != nil {
		return nil, err
	}
	var names []string
	eachResource(lists, func(r metav1.APIResource, full string) {
		if slices.Contains(r.Verbs, "list") && slices.Contains(r.Verbs, "watch") { // what an informer can follow
			names = append(names, full)
		}
	})
	slices.Sort(names)
	return slices.Compact(names), nil
}
