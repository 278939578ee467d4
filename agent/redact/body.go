package redact

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Body redacts a request or response body as client-go logs it (JSON,
// possibly cut short, or a hex dump of protobuf) for a log file. A JSON
// object or list is redacted as Map does, each item by the list's kind;
// text that cannot be read whole is kept only when it names no secret
// kind and no whole-object annotation, since a cut body cannot be
// redacted field by field. A hex dump is never kept: its text column
// shows a Secret's bytes, split across lines where no search finds them.
func (p Policy) Body(body string) string {
	trimmed := strings.TrimSpace(body)
	if !strings.HasPrefix(trimmed, "{") {
		if trimmed == "" {
			return body
		}
		return fmt.Sprintf("<%d bytes not logged: informtop writes no body it cannot read to redact>", len(body))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(trimmed), &m); err != nil {
		if p.mentionsSecrets(trimmed) {
			return fmt.Sprintf("<%d bytes not logged: a cut body that may hold Secret data>", len(body))
		}
		return body
	}
	kind, _ := m["kind"].(string)
	if items, ok := m["items"].([]any); ok {
		itemKind := strings.TrimSuffix(kind, "List")
		for _, it := range items {
			im, ok := it.(map[string]any)
			if !ok {
				continue
			}
			k, _ := im["kind"].(string)
			if k == "" {
				k = itemKind
			}
			p.redactMap("", k, im)
		}
	} else if rows, ok := m["rows"].([]any); ok && kind == "Table" {
		// kubectl get's Table: each row may carry its object, or the
		// object's metadata with its whole-object annotations.
		for _, r := range rows {
			rm, _ := r.(map[string]any)
			if om, ok := rm["object"].(map[string]any); ok {
				k, _ := om["kind"].(string)
				p.redactMap("", k, om)
			}
		}
	} else {
		p.redactMap("", kind, m)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprintf("<%d bytes not logged: %v>", len(body), err)
	}
	return string(out)
}

// mentionsSecrets reports whether JSON text names a secret kind (as an
// object's or a list's kind) or a whole-object annotation.
func (p Policy) mentionsSecrets(text string) bool {
	for k := range p.kinds {
		if strings.Contains(text, `"kind":"`+k+`"`) || strings.Contains(text, `"kind":"`+k+`List"`) {
			return true
		}
	}
	for _, a := range p.annotations {
		if strings.Contains(text, `"`+a+`"`) {
			return true
		}
	}
	return false
}
