package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
)

// serveCut answers the informer's cache as one state, for informtop attach
// --verify to compare with the API server: a digest always, every key and
// version with keys=true. A source without Cuts is answered 404, an
// informer not listed yet 409, each with a sentence.
func (h *handler) serveCut(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("informer")
	switch {
	case name == "":
		writeError(w, http.StatusBadRequest, fmt.Sprintf("the query parameter informer is required; this agent serves %s", h.list()))
		return
	case h.cuts == nil:
		writeError(w, http.StatusNotFound, fmt.Sprintf("this agent cannot cut informer caches: its source (%s) has no copy of them to cut", h.src.Kind()))
		return
	}
	c, err := h.cuts.Cut(r.Context(), name)
	switch {
	case errors.Is(err, source.ErrUnknownInformer):
		writeError(w, http.StatusNotFound, fmt.Sprintf("this agent serves no informer named %q; it serves %s", name, h.list()))
	case errors.Is(err, source.ErrNothingReceived):
		writeError(w, http.StatusConflict, fmt.Sprintf("informer %s has not received its first list yet; try again once it has", name))
	case err != nil:
		writeError(w, http.StatusConflict, fmt.Sprintf("cannot cut informer %s: %v", name, err))
	default:
		writeJSON(w, cutOf(c, r.URL.Query().Get("keys") == "true"))
	}
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
