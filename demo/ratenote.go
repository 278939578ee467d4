package demo

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/internal/humanize"
)

// rateWarning says so while the background workload sends an informer
// more notifications a second than one of its handlers can take: that
// handler's backlog then grows, and the process's memory with it, for as
// long as the rate lasts. The backlog is client-go's unbounded ring, which
// the demo teaches, so it is not capped; the viewer is told instead. ""
// while every handler keeps up.
//
// The estimate: the workload spreads its changes evenly over its
// resources, each change is one notification to every handler of an
// informer of that resource, and a handler that spends d in a callback
// takes at most 1/d a second. Informers with a selector see an unknown
// share and are left out.
func (d *Demo) rateWarning() string {
	rate := d.work.Rate()
	if rate <= 0 {
		return ""
	}
	resources := d.plan.workload.resources
	if len(resources) == 0 {
		resources = d.cluster.Resources()
	}
	perInformer := rate / float64(len(resources))
	for _, ip := range d.plan.informers {
		if ip.selector != (cluster.Selector{}) || !slices.Contains(resources, ip.resource) {
			continue
		}
		var behind []string
		for _, lp := range ip.listeners {
			delay := d.scaled(lp.delay)
			if delay <= 0 {
				continue
			}
			if takes := float64(time.Second) / float64(delay); perInformer > takes {
				behind = append(behind, fmt.Sprintf("%s (%s/s at %s a callback)", lp.name, humanize.Count(int64(takes)), delay))
			}
		}
		if len(behind) == 0 {
			continue
		}
		grows := "its backlog grows"
		if len(behind) > 1 {
			grows = "their backlogs grow"
		}
		return fmt.Sprintf("%s changes/s send %s ~%s notifications a second, more than %s can take: %s without bound, as client-go's would, and memory with it. Press - to slow the workload.",
			humanize.Count(int64(rate)), ip.name, humanize.Count(int64(perInformer)), strings.Join(behind, " and "), grows)
	}
	return ""
}
