package cluster

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// tokenVersion marks continue tokens of this server.
const tokenVersion = "informtop.demo/v1"

// continueToken is what a continue string encodes: the list's
// resourceVersion (every page reads the snapshot at it) and the last key
// returned (the next page starts after it).
type continueToken struct {
	V     string `json:"v"`
	RV    uint64 `json:"rv"`
	After string `json:"after"`
}

func encodeContinue(rv uint64, after string) string {
	b, _ := json.Marshal(continueToken{V: tokenVersion, RV: rv, After: after})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeContinue parses a token; a malformed one is a 400, as on a real
// server.
func decodeContinue(s string) (continueToken, error) {
	var t continueToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err == nil && (t.V != tokenVersion || t.RV == 0) {
		err = errors.New("unknown token version or missing resourceVersion")
	}
	if err != nil {
		return continueToken{}, apierrors.NewBadRequest(fmt.Sprintf("continue key is not valid: %v", err))
	}
	return t, nil
}
