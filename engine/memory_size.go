package engine

import (
	"encoding/json"
	"strings"

	"github.com/informtop/informtop/agent/pipeline"
)

// LastAppliedAnnotation is the annotation kubectl apply keeps the whole
// applied object in.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// fieldSizes is bytes per field.
type fieldSizes map[string]float64

// sizeOf splits obj's JSON encoding (what the server sent, near enough) by
// field. The parts add up to the whole encoding: each field is charged its
// key, colon, value and comma; braces go to "other".
func sizeOf(obj any) (fieldSizes, bool) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return nil, false
	}
	sizes := fieldSizes{pipeline.FieldOther: float64(len(b))}
	charge := func(field string, key string, value []byte) {
		n := float64(memberSize(key, value))
		sizes[field] += n
		sizes[pipeline.FieldOther] -= n
	}
	for key, value := range top {
		switch key {
		case "metadata":
			for field, n := range metadataSizes(value) {
				sizes[field] += n
				sizes[pipeline.FieldOther] -= n
			}
		case "spec":
			charge(pipeline.FieldSpec, key, value)
		case "status":
			charge(pipeline.FieldStatus, key, value)
		case "data", "binaryData":
			charge(pipeline.FieldData, key, value)
		}
	}
	return sizes, true
}

// metadataSizes splits the metadata member ("metadata":{…},) into
// managedFields, last-applied, other annotations and the rest.
func metadataSizes(value json.RawMessage) fieldSizes {
	sizes := fieldSizes{pipeline.FieldMetadata: float64(memberSize("metadata", value))}
	var meta map[string]json.RawMessage
	if json.Unmarshal(value, &meta) != nil {
		return sizes
	}
	move := func(field string, n int) {
		sizes[field] += float64(n)
		sizes[pipeline.FieldMetadata] -= float64(n)
	}
	if mf, ok := meta["managedFields"]; ok {
		move(pipeline.FieldManagedFields, memberSize("managedFields", mf))
	}
	ann, ok := meta["annotations"]
	if !ok {
		return sizes
	}
	var annotations map[string]json.RawMessage
	if json.Unmarshal(ann, &annotations) != nil {
		move(pipeline.FieldAnnotations, memberSize("annotations", ann))
		return sizes
	}
	lastApplied := 0
	if v, ok := annotations[LastAppliedAnnotation]; ok {
		lastApplied = memberSize(LastAppliedAnnotation, v)
		move(pipeline.FieldLastApplied, lastApplied)
	}
	move(pipeline.FieldAnnotations, memberSize("annotations", ann)-lastApplied)
	return sizes
}

// memberSize is the bytes of `"key":value,` in compact JSON.
func memberSize(key string, value []byte) int {
	k, _ := json.Marshal(key) // quoting as the encoder does
	return len(k) + 1 + len(strings.TrimSpace(string(value))) + 1
}
