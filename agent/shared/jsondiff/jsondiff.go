// Package jsondiff finds the fields that differ between two Kubernetes
// objects in their JSON form, as paths users know from YAML
// ("metadata.labels.app", "spec.containers[0].image"). It only finds
// them: wording and hiding values is the caller's (package redact, the
// engine's mutation reports).
package jsondiff

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime"
)

// Side is one side of a change: a JSON value, or absent.
type Side struct {
	Value   any
	Present bool
}

// Change is one field whose value differs.
type Change struct {
	// Path is "metadata.labels.app", "spec.containers[1]"; "" is the
	// whole object.
	Path          string
	Before, After Side
}

// Objects lists the changes from before to after, sorted by path; lists
// are compared index by index, and a map that appears or disappears whole
// is listed leaf by leaf. It fails when either is not a runtime.Object.
func Objects(before, after any) ([]Change, error) {
	bx, err := tree(before)
	if err != nil {
		return nil, err
	}
	ax, err := tree(after)
	if err != nil {
		return nil, err
	}
	var out []Change
	walk(&out, "", Side{bx, true}, Side{ax, true})
	return out, nil
}

func tree(obj any) (map[string]any, error) {
	if ro, ok := obj.(runtime.Object); ok {
		return runtime.DefaultUnstructuredConverter.ToUnstructured(ro)
	}
	return nil, fmt.Errorf("%T is not a runtime.Object", obj)
}

func walk(out *[]Change, path string, x, y Side) {
	xm, xIsMap := x.Value.(map[string]any)
	ym, yIsMap := y.Value.(map[string]any)
	if xIsMap && yIsMap {
		keys := slices.Collect(maps.Keys(xm))
		for k := range ym {
			if _, ok := xm[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			xv, xok := xm[k]
			yv, yok := ym[k]
			walk(out, join(path, k), Side{xv, xok}, Side{yv, yok})
		}
		return
	}
	xl, xIsList := x.Value.([]any)
	yl, yIsList := y.Value.([]any)
	if xIsList && yIsList {
		for i := range max(len(xl), len(yl)) {
			var xs, ys Side
			if i < len(xl) {
				xs = Side{xl[i], true}
			}
			if i < len(yl) {
				ys = Side{yl[i], true}
			}
			walk(out, path+"["+strconv.Itoa(i)+"]", xs, ys)
		}
		return
	}
	if x.Present == y.Present && reflect.DeepEqual(x.Value, y.Value) {
		return
	}
	leaves(out, path, x, y)
}

// leaves adds one change, or one per leaf of a map that appeared or
// disappeared whole, so a first label reads metadata.labels.touched.
func leaves(out *[]Change, path string, x, y Side) {
	if m, ok := y.Value.(map[string]any); ok && len(m) > 0 && !x.Present {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			leaves(out, join(path, k), Side{}, Side{m[k], true})
		}
		return
	}
	if m, ok := x.Value.(map[string]any); ok && len(m) > 0 && !y.Present {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			leaves(out, join(path, k), Side{m[k], true}, Side{})
		}
		return
	}
	*out = append(*out, Change{Path: path, Before: x, After: y})
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// MaxLines bounds how many changes Lines names; the rest are counted.
const MaxLines = 8

// Lines words the changes from before to after, a line each as line says
// (path is the change's, "(object)" for the whole object), at most
// MaxLines and then "… and N more". Objects that cannot be compared give
// one line saying so.
func Lines(before, after any, line func(path string, c Change) string) []string {
	changes, err := Objects(before, after)
	if err != nil {
		return []string{"(the object cannot be converted to JSON to compare fields)"}
	}
	out := make([]string, 0, min(len(changes), MaxLines+1))
	for i, c := range changes {
		if i == MaxLines {
			out = append(out, fmt.Sprintf("… and %d more", len(changes)-MaxLines))
			break
		}
		path := c.Path
		if path == "" {
			path = "(object)"
		}
		out = append(out, line(path, c))
	}
	return out
}
