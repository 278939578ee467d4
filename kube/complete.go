package kube

import (
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
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
	for _, l := range lists {
		gv, perr := schema.ParseGroupVersion(l.GroupVersion)
		if perr != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "watch") {
				continue // subresources, and resources an informer cannot follow
			}
			name := r.Name
			if gv.Group != "" {
				name += "." + gv.Group
			}
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}
