package serve

import (
	"fmt"
	"net/http"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/source"
)

// The store endpoints read an informer's cache through the source's
// Store, which redacts as the informer's resource asks.

func (h *handler) serveEntries(w http.ResponseWriter, r *http.Request) {
	_, st := h.store(w, r)
	if st == nil {
		return
	}
	entries, gen := st.Entries()
	if entries == nil {
		entries = []source.Entry{}
	}
	writeJSON(w, api.StoreEntries{Generation: gen, Entries: entries})
}

func (h *handler) serveGeneration(w http.ResponseWriter, r *http.Request) {
	_, st := h.store(w, r)
	if st == nil {
		return
	}
	writeJSON(w, api.StoreGeneration{Generation: st.Generation()})
}

func (h *handler) serveObject(w http.ResponseWriter, r *http.Request) {
	name, st := h.store(w, r)
	if st == nil {
		return
	}
	key := r.URL.Query().Get("key")
	if key == "" {
		writeError(w, http.StatusBadRequest, "the query parameter key is required, e.g. key=default/my-pod")
		return
	}
	obj, ok := st.Object(key)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("informer %s has no object %q cached", name, key))
		return
	}
	writeJSON(w, obj)
}

func (h *handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	_, st := h.store(w, r)
	if st == nil {
		return
	}
	q := r.URL.Query()
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
