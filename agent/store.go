package agent

import (
	"fmt"
	"net/http"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/source"
	"github.com/informtop/informtop/source/local"
)

// The store endpoints read an informer's cache through
// source.InformerStoreOf, which redacts as the informer's resource asks.

// store reads inf's cache, redacted by its resource: Options.Resources
// first, else what the informer knows of itself (its Options.Resource or
// Identifier). Unknown, redaction still hides what names itself a Secret.
func (h *handler) store(inf *engine.Informer) source.StoreReader {
	if gvr, ok := h.resources[inf.Name()]; ok && gvr.Resource != "" {
		return local.InformerStoreOf(inf, gvr.GroupResource().String())
	}
	return local.InformerStore(inf)
}

func (h *handler) serveEntries(w http.ResponseWriter, r *http.Request) {
	inf := h.informer(w, r)
	if inf == nil {
		return
	}
	entries, gen := h.store(inf).Entries()
	if entries == nil {
		entries = []source.Entry{}
	}
	writeJSON(w, api.StoreEntries{Generation: gen, Entries: entries})
}

func (h *handler) serveGeneration(w http.ResponseWriter, r *http.Request) {
	inf := h.informer(w, r)
	if inf == nil {
		return
	}
	writeJSON(w, api.StoreGeneration{Generation: h.store(inf).Generation()})
}

func (h *handler) serveObject(w http.ResponseWriter, r *http.Request) {
	inf := h.informer(w, r)
	if inf == nil {
		return
	}
	key := r.URL.Query().Get("key")
	if key == "" {
		writeError(w, http.StatusBadRequest, "the query parameter key is required, e.g. key=default/my-pod")
		return
	}
	obj, ok := h.store(inf).Object(key)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("informer %s has no object %q cached", inf.Name(), key))
		return
	}
	writeJSON(w, obj)
}

func (h *handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	inf := h.informer(w, r)
	if inf == nil {
		return
	}
	q := r.URL.Query()
	st := h.store(inf)
	var items []string
	switch index, value := q.Get("index"), q.Get("value"); {
	case index == "":
		items = st.IndexNames()
	case !q.Has("value"):
		items = st.IndexValues(index)
	default:
		items = st.IndexKeys(index, value)
	}
	if items == nil {
		items = []string{}
	}
	writeJSON(w, api.StoreIndex{Items: items})
}
