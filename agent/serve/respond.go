package serve

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
	writeErrorBody(w, status, errorBody(msg))
}

// errorBody is the api.Error of the sentence msg, encoded.
func errorBody(msg string) []byte {
	body, _ := json.Marshal(api.Error{Error: msg})
	return body
}

// writeErrorBody answers an encoded api.Error.
func writeErrorBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// headerChallenge is WWW-Authenticate as net/http keys it: set by its
// canonical key, it is not canonicalised anew (an allocation) per refusal.
var headerChallenge = http.CanonicalHeaderKey("WWW-Authenticate")

// refuse answers a request its credential does not allow (401, 403) with
// the challenge that says what to send and a body made once.
func refuse(w http.ResponseWriter, status int, challenge string, body []byte) {
	w.Header()[headerChallenge] = []string{challenge}
	writeErrorBody(w, status, body)
}
