package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/source/local"
	"github.com/informtop/informtop/verify"
)

// serveCut answers the informer's cache as one state, for informtop attach
// --verify to compare with the API server: a digest always, every key and
// version with keys=true.
func (h *handler) serveCut(w http.ResponseWriter, r *http.Request) {
	inf := h.informer(w, r)
	if inf == nil {
		return
	}
	c, err := inf.Cut()
	if errors.Is(err, engine.ErrNothingReceived) {
		writeError(w, http.StatusConflict, fmt.Sprintf("informer %s has not received its first list yet; try again once it has", inf.Name()))
		return
	}
	if err != nil {
		writeError(w, http.StatusConflict, fmt.Sprintf("informer %s: %v", inf.Name(), err))
		return
	}
	writeJSON(w, cutOf(local.CutOf(c), r.URL.Query().Get("keys") == "true"))
}

// cutOf renders a cut for the wire, with its digest.
func cutOf(c verify.Cut, withEntries bool) api.Cut {
	keys := slices.Sorted(maps.Keys(c.Objects))
	d := sha256.New()
	out := api.Cut{ResourceVersion: c.ResourceVersion, Objects: len(keys), HeldSeconds: c.Held.Seconds()}
	if withEntries {
		out.Entries = make([]api.CutEntry, 0, len(keys))
	}
	for _, k := range keys {
		fmt.Fprintf(d, "%s@%s\n", k, c.Objects[k])
		if withEntries {
			out.Entries = append(out.Entries, api.CutEntry{Key: k, ResourceVersion: c.Objects[k]})
		}
	}
	out.Digest = hex.EncodeToString(d.Sum(nil))
	return out
}
