package instr

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"k8s.io/client-go/tools/cache"
)

// HandlerName derives a display name for a handler the way client-go
// names handlers in its logs: for ResourceEventHandlerFuncs, the package
// (and enclosing function) where its funcs were declared, or the funcs'
// full names joined with "+" when they come from different places; for
// other handlers, the package-qualified name of the concrete type.
func HandlerName(h cache.ResourceEventHandler) string {
	switch f := h.(type) {
	case cache.ResourceEventHandlerFuncs:
		if name := funcsName(f); name != "" {
			return name
		}
	case *cache.ResourceEventHandlerFuncs:
		if f != nil {
			if name := funcsName(*f); name != "" {
				return name
			}
		}
	}
	t := reflect.TypeOf(h)
	if t == nil {
		return ""
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" {
		return fmt.Sprintf("%T", h)
	}
	if t.PkgPath() == "" {
		return t.Name()
	}
	return t.PkgPath() + "." + t.Name()
}

// funcsName names the non-nil funcs of f; "" when all are nil.
func funcsName(f cache.ResourceEventHandlerFuncs) string {
	var names []string
	for _, fn := range []any{f.AddFunc, f.UpdateFunc, f.DeleteFunc} {
		v := reflect.ValueOf(fn)
		if v.IsNil() {
			continue
		}
		if rf := runtime.FuncForPC(v.Pointer()); rf != nil && rf.Name() != "" {
			names = append(names, rf.Name())
		}
	}
	if len(names) == 0 {
		return ""
	}
	// Funcs declared side by side (e.g. closures in one constructor) share
	// everything before the last dot; that common part is the useful name.
	common := qualifier(names[0])
	for _, n := range names[1:] {
		if qualifier(n) != common {
			return strings.Join(names, "+")
		}
	}
	return common
}

// qualifier is name without its last dot-separated element.
func qualifier(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}
