package grafana

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// listeners is the row of event handler registrations: whether a handler
// is hung, where, and how far its notifications fall behind.
func listeners() []cog.Builder[dashboard.Panel] {
	// The frame label appears once a call passes 2 s, which starts a new
	// series; dropping it keeps one line per listener.
	inCallback := fmt.Sprintf("max without (frame) (%s)", sel(mInCallback, listener))
	return []cog.Builder[dashboard.Panel]{
		withThresholds(graph("Callback in progress",
			fmt.Sprintf("How long each handler has been in its current OnAdd/OnUpdate/OnDelete call; 0 when idle. A line climbing by one second a second is a call that does not return; past %d s the agent records where (table beside), past %d s the stall alert counts it.", frameSeconds, stallSeconds),
			unitSeconds, query(inCallback, legendListener)), stallSteps...).Span(12),
		grid("Stuck in",
			fmt.Sprintf("Calls running longer than %d s and the innermost frame of your code the agent found them in (function (file:line)): the code to read.", frameSeconds),
			[]string{fmt.Sprintf(`%s > 0`, sel(mInCallback, listener+`, frame!=""`))},
			[]column{{ref: "A", header: "In callback", unit: unitSeconds, steps: stallSteps}},
			"group", "version", "resource").Span(12).Height(8),
		withThresholds(graph("Backlog",
			"Notifications waiting for the handler (processorListener's pendingNotifications buffer), the one in progress not counted. Growing while the callback is stuck: the registration is hung. For client-go's own informer a lower bound.",
			unitCount, query(sel(mPending, listener), legendListener)), step{backlogWarn, "orange"}),
		withThresholds(graph("Oldest pending",
			"Age of the oldest notification the handler has not finished, the one in progress included: how stale the handler's view of the cache is.",
			unitSeconds, query(sel(mOldest, listener), legendListener)), step{stallSeconds, "red"}),
		graph("Handler calls by type",
			"Handler calls that returned, per second: add, update, delete and sync (resync) notifications.",
			unitPerSec, query(fmt.Sprintf("sum by (cluster, job, instance, name, listener, type) (%s)", rate(mDelivered, listener)), legendListener+" {{type}}")),
		graph("Panics",
			"Handler calls that panicked, per rate interval. On client-go's own informer the panic goes on as before; the agent only counts it.",
			unitCount, query(fmt.Sprintf("increase(%s[$__rate_interval])", sel(mPanics, listener)), legendListener)).
			DrawStyle(common.GraphDrawStyleBars),
		graph("Cache mutations",
			"Handler calls that changed the cached object they were given instead of a DeepCopy, per rate interval; counted only when the informer runs with the engine's mutation attribution.",
			unitCount, query(fmt.Sprintf("increase(%s[$__rate_interval])", sel(mMutations, listener)), legendListener)).
			DrawStyle(common.GraphDrawStyleBars),
	}
}
