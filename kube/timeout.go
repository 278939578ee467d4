package kube

import (
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
)

// boundRequests makes every request of clients built from flags end after
// timeout unless a timeout is set already (--request-timeout), keeping
// any config wrapper the caller set.
func boundRequests(flags *genericclioptions.ConfigFlags, timeout time.Duration) {
	prev := flags.WrapConfigFn
	flags.WithWrapConfigFn(func(c *rest.Config) *rest.Config {
		if prev != nil {
			c = prev(c)
		}
		if c.Timeout == 0 {
			c.Timeout = timeout
		}
		return c
	})
}
