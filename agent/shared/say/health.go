package say

import (
	"fmt"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// Health says what ranked a process or informer where it is, at now: the
// handler stuck and where, the backlog, what has not synced or gone
// quiet; "" when healthy. Names are given as the source has them
// (informer names of a fleet carry their process's).
func Health(h source.Health, now time.Time) string {
	switch h.Trouble {
	case source.Stalled:
		s := fmt.Sprintf("handler %s of %s has been in %s for %s", h.Listener, h.Informer, callback(h), humanize.Duration(now.Sub(h.Since)))
		if h.Frame != nil {
			s += ", stuck in " + h.Frame.String()
		}
		if h.Pending > 0 {
			s += fmt.Sprintf("; %s wait behind it", humanize.Plural(h.Pending, "notification"))
		}
		return s
	case source.Backlog:
		return fmt.Sprintf("handler %s of %s is %s behind, with %s waiting", h.Listener, h.Informer,
			humanize.Duration(now.Sub(h.Since)), humanize.Plural(h.Pending, "notification"))
	case source.NotSynced:
		return fmt.Sprintf("informer %s has not synced", h.Informer)
	case source.Stale:
		return fmt.Sprintf("informer %s may be out of date: %s", h.Informer, staleWords(h.Stale))
	case source.Down:
		return "Prometheus cannot scrape it (up is 0), so its figures are gone: is the process running, and its /metrics reachable?"
	}
	return ""
}

func callback(h source.Health) string {
	if h.Callback == "" {
		return source.CallbackUnknown
	}
	if h.Key != "" {
		return h.Callback + " of " + h.Key
	}
	return h.Callback
}

func staleWords(why string) string {
	switch why {
	case source.StaleSilent:
		return "it has heard nothing from the API server for longer than a bookmark interval allows"
	case source.StaleWatchDown:
		return "its watch is down"
	case source.StaleRelisting:
		return "it is listing again"
	}
	return why
}
