package redact

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/informtop/informtop/agent/shared/jsondiff"
)

// FieldChanges lists the fields that differ between before and after as
// JSON paths with both values, e.g. `metadata.labels.touched: "" → "yes"`
// (a missing field shows as ""), at most eight and a count of the rest.
// Objects are compared in their JSON form, so paths read as in YAML; lists
// are compared index by index. resource is the informer's ("" unknown):
// values that may be secret are shown by size, as the current policy
// decides for it. It is what the engine's mutation attribution is given
// to describe a change (engine.Instrumentation.DescribeMutation).
func FieldChanges(resource string, before, after any) []string {
	p := Current()
	kind := Kind(after)
	secret := p.Secret(resource, after) || p.Secret(resource, before)
	return jsondiff.Lines(before, after, func(path string, c jsondiff.Change) string {
		if p.HidePath(secret, kind, c.Path) {
			// A Secret's data values are base64 in JSON, the rest are not:
			// sizes as Map gives them.
			b64 := kind == "Secret" && strings.HasPrefix(c.Path, "data.")
			return path + ": " + sizeOf(c.Before, b64) + " → " + sizeOf(c.After, b64)
		}
		return path + ": " + jsonOf(c.Before) + " → " + jsonOf(c.After)
	})
}

// sizeOf shows one side of a secret field's change by its size.
func sizeOf(s jsondiff.Side, base64 bool) string {
	if !s.Present || s.Value == nil {
		return `""`
	}
	str, ok := s.Value.(string)
	if !ok {
		return "<redacted>"
	}
	if base64 {
		return Value(DataSize(str))
	}
	return Value(len(str))
}

// jsonOf shows one side of a change, cut at 60 bytes; an absent one as "".
func jsonOf(s jsondiff.Side) string {
	if !s.Present {
		return `""`
	}
	out, err := json.Marshal(s.Value)
	if err != nil {
		return fmt.Sprint(s.Value)
	}
	const maxValue = 60
	if len(out) > maxValue {
		return string(out[:maxValue]) + "…"
	}
	return string(out)
}
