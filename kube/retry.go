package kube

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
)

var _ source.Retrier = (*Source)(nil)

// NextAttempts implements source.Retrier: as the last frame saw them.
func (s *Source) NextAttempts() map[string]time.Time {
	s.factsMu.RLock()
	defer s.factsMu.RUnlock()
	return maps.Clone(s.nextAt)
}

// RetryNow implements source.Retrier. A restarted informer is a new one
// in its place, listing at once: client-go's reflector has no way to cut
// its backoff short. So its cache is listed afresh (no tombstones for
// what went while the server was away: the new list is the truth), which
// is why nothing is restarted while the server still does not answer.
func (s *Source) RetryNow(ctx context.Context) ([]string, error) {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.live.timeout)
	defer cancel()
	if err := s.live.review.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Error(); err != nil {
		return nil, fmt.Errorf("the API server at %s still does not answer (%s): nothing was restarted, the caches keep what they hold and client-go keeps retrying",
			s.server, say.ErrorReason(err.Error(), "the request failed"))
	}
	var restarted, still []string
	for _, e := range s.Informers() {
		name := e.Name()
		f, ok := s.fact(name)
		if !ok || f.unwatched != "" {
			continue
		}
		switch source.LinkOf(e.State(), f.denied != "") {
		case source.LinkWatchDown, source.LinkRelistPending, source.LinkForbidden:
		default:
			continue
		}
		why := denied(ctx, s.live.review, f.res, f.namespace, s.live.as)
		if why != "" && f.denied != "" {
			still = append(still, name) // refused before, refused now: a restart would change nothing
			continue
		}
		if err := s.add(f.res, f.namespace, why, name); err != nil {
			return restarted, fmt.Errorf("cannot restart %s: %w", name, err)
		}
		restarted = append(restarted, name)
	}
	if len(restarted) == 0 && len(still) > 0 {
		return nil, fmt.Errorf("%s still may not be listed and watched (RBAC): nothing to retry until someone grants it", strings.Join(still, ", "))
	}
	return restarted, nil
}
