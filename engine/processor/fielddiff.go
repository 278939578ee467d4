package processor

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informtop/informtop/redact"
)

// maxFieldChanges bounds how many changed fields one report lists.
const maxFieldChanges = 8

// FieldChanges lists the fields that differ between before and after as
// JSON paths with both values, e.g. `metadata.labels.touched: "" → "yes"`
// (a missing field shows as ""). Objects are compared in their JSON form, so
// paths use the names users know from YAML; go-cmp walks the two trees.
// resource is the informer's ("" unknown): values that may be secret are
// shown by size, as redact decides for it.
func FieldChanges(resource string, before, after any) []string {
	bx, errB := toJSONTree(before)
	ax, errA := toJSONTree(after)
	if errB != nil || errA != nil {
		return []string{"(the object cannot be converted to JSON to compare fields)"}
	}
	policy := redact.Current()
	r := pathReporter{policy: policy, kind: redact.Kind(after),
		secret: policy.Secret(resource, after) || policy.Secret(resource, before)}
	cmp.Equal(bx, ax, cmp.Reporter(&r))
	if len(r.changes) > maxFieldChanges {
		more := len(r.changes) - maxFieldChanges
		r.changes = append(r.changes[:maxFieldChanges], fmt.Sprintf("… and %d more", more))
	}
	return r.changes
}

func toJSONTree(obj any) (map[string]any, error) {
	if ro, ok := obj.(runtime.Object); ok {
		return runtime.DefaultUnstructuredConverter.ToUnstructured(ro)
	}
	return nil, fmt.Errorf("%T is not a runtime.Object", obj)
}

// pathReporter records the path and values of every difference go-cmp
// finds. For a Secret, values that can hold secret data are shown by size:
// these reports reach the dashboard, events and the agent.
type pathReporter struct {
	policy  redact.Policy
	kind    string
	secret  bool
	path    cmp.Path
	changes []string
}

func (r *pathReporter) PushStep(ps cmp.PathStep) { r.path = append(r.path, ps) }
func (r *pathReporter) PopStep()                 { r.path = r.path[:len(r.path)-1] }

func (r *pathReporter) Report(rs cmp.Result) {
	if rs.Equal() {
		return
	}
	vx, vy := r.path.Last().Values()
	r.report(jsonPath(r.path), vx, vy)
}

// report adds one change; a whole map appearing or disappearing is listed
// leaf by leaf, so a first label reads metadata.labels.touched, not
// metadata.labels.
func (r *pathReporter) report(path string, vx, vy reflect.Value) {
	if m, ok := mapOf(vy); ok && !present(vx) {
		for _, k := range sortedKeys(m) {
			r.report(path+"."+k, reflect.Value{}, reflect.ValueOf(m[k]))
		}
		return
	}
	if m, ok := mapOf(vx); ok && !present(vy) {
		for _, k := range sortedKeys(m) {
			r.report(path+"."+k, reflect.ValueOf(m[k]), reflect.Value{})
		}
		return
	}
	if r.policy.HidePath(r.secret, r.kind, path) {
		// A Secret's data values are base64 in JSON, the rest are not:
		// sizes as redact.Map gives them.
		b64 := r.kind == "Secret" && strings.HasPrefix(path, "data.")
		r.changes = append(r.changes, path+": "+redactedValue(vx, b64)+" → "+redactedValue(vy, b64))
		return
	}
	r.changes = append(r.changes, path+": "+jsonValue(vx)+" → "+jsonValue(vy))
}

func present(v reflect.Value) bool {
	return v.IsValid() && !(v.Kind() == reflect.Interface && v.IsNil())
}

func mapOf(v reflect.Value) (map[string]any, bool) {
	if !present(v) {
		return nil, false
	}
	m, ok := v.Interface().(map[string]any)
	return m, ok && len(m) > 0
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsonPath renders go-cmp's path through the JSON tree as
// "metadata.labels.touched" or "spec.containers[0].image".
func jsonPath(p cmp.Path) string {
	var b strings.Builder
	for _, step := range p {
		switch s := step.(type) {
		case cmp.MapIndex:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, s.Key().Interface())
		case cmp.SliceIndex:
			i := s.Key()
			if i < 0 {
				ix, iy := s.SplitKeys()
				i = max(ix, iy)
			}
			b.WriteString("[" + strconv.Itoa(i) + "]")
		}
	}
	if b.Len() == 0 {
		return "(object)"
	}
	return b.String()
}

// redactedValue shows one side of a secret field's difference by its size.
func redactedValue(v reflect.Value, base64 bool) string {
	if !present(v) {
		return `""`
	}
	for v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	if v.Kind() != reflect.String {
		return "<redacted>"
	}
	if base64 {
		return redact.Value(redact.DataSize(v.String()))
	}
	return redact.Value(v.Len())
}

// jsonValue shows one side of a difference; an absent one as "".
func jsonValue(v reflect.Value) string {
	if !v.IsValid() {
		return `""`
	}
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Interface {
		return "null"
	}
	out, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Sprint(v.Interface())
	}
	const maxValue = 60
	if len(out) > maxValue {
		return string(out[:maxValue]) + "…"
	}
	return string(out)
}
