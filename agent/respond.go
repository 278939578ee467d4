package agent

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/informtop/informtop/agent/api"
)

// writeJSON answers v with status 200.
func writeJSON(w http.ResponseWriter, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("the agent could not encode its answer: %v", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if rec, ok := w.(*recorder); ok {
		rec.body = body // marshalled for this answer alone: kept, not copied
		return
	}
	_, _ = w.Write(body)
}

// writeError answers an api.Error with the sentence msg.
func writeError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(api.Error{Error: msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
