package attach

import (
	"context"
	"net/url"
	"time"

	"github.com/informtop/informtop/agent/verify"

	"github.com/informtop/informtop/agent/api"
)

// Cut reads the named informer's cache, in the controller, as one state:
// every key with its resourceVersion and the version they stand at, for
// comparing with the API server (informtop attach --verify). It
// implements source.Cutter; an error is the agent's sentence (an informer
// it does not serve, a source that cannot cut, one not listed yet).
func (s *Source) Cut(ctx context.Context, informer string) (verify.Cut, error) {
	var c api.Cut
	if err := s.get(ctx, api.PathCut, url.Values{"informer": {informer}, "keys": {"true"}}, &c); err != nil {
		return verify.Cut{}, err
	}
	out := verify.Cut{
		ResourceVersion: c.ResourceVersion,
		Objects:         make(map[string]string, len(c.Entries)),
		Held:            time.Duration(c.HeldSeconds * float64(time.Second)),
	}
	for _, e := range c.Entries {
		out.Objects[e.Key] = e.ResourceVersion
	}
	return out, nil
}
