package demo

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/demo/cluster"
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
		var names, takes []string
		for _, lp := range ip.listeners {
			delay := d.scaled(lp.delay)
			if delay <= 0 {
				continue
			}
			if take := float64(time.Second) / float64(delay); perInformer > take {
				names = append(names, lp.name)
				takes = append(takes, humanize.Count(int64(take))+"/s")
			}
		}
		if len(names) == 0 {
			continue
		}
		// One listener's warning fits a line of the narration panel at 160
		// columns; what matters most comes first, for narrower ones.
		who, whose := "it takes", "its backlog and memory grow"
		if len(names) > 1 {
			who, whose = "they take", "their backlogs and memory grow"
		}
		return fmt.Sprintf("%s cannot keep up with %s changes/s (%s gets ~%s/s, %s %s): %s without bound, like client-go's; - slows down",
			strings.Join(names, " and "), humanize.Count(int64(rate)), ip.name, humanize.Count(int64(perInformer)),
			who, strings.Join(takes, " and "), whose)
	}
	return ""
}
