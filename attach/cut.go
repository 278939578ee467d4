package attach

import (
	"context"
	"net/url"
	"time"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/engine"
)

// Cut reads the named informer's cache, in the controller, as one state:
// every key with its resourceVersion and the version they stand at, for
// comparing with the API server (informtop attach --verify).
func (s *Source) Cut(ctx context.Context, informer string) (engine.CacheCut, error) {
	var c api.Cut
	if err := s.get(ctx, api.PathCut, url.Values{"informer": {informer}, "keys": {"true"}}, &c); err != nil {
		return engine.CacheCut{}, err
	}
	out := engine.CacheCut{
		ResourceVersion: c.ResourceVersion,
		Objects:         make(map[string]string, len(c.Entries)),
		Held:            time.Duration(c.HeldSeconds * float64(time.Second)),
	}
	for _, e := range c.Entries {
		out.Objects[e.Key] = e.ResourceVersion
	}
	return out, nil
}
