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

// funcsName names the non-nil funcs of f; "" when all are nil. Funcs
// declared side by side (closures in one constructor) share their owner,
// which names them. When they differ, a method value names its receiver's
// type (main.(*Controller)): closures beside a controller's methods are
// the controller's too, as in client-go's sample-controller. Otherwise
// the funcs' full names are joined with "+".
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
	common := owner(names[0])
	same := true
	for _, n := range names[1:] {
		same = same && owner(n) == common
	}
	if same {
		return common
	}
	receiver := ""
	for _, n := range names {
		if !strings.HasSuffix(n, "-fm") {
			continue
		}
		if o := owner(n); receiver == "" || receiver == o {
			receiver = o
		} else {
			receiver = "" // methods of two types: none names them all
			break
		}
	}
	if receiver != "" {
		return receiver
	}
	return strings.Join(names, "+")
}

// owner is what declared the function named name: a method value's
// receiver type ("main.(*Controller).enqueue-fm" → "main.(*Controller)"),
// a closure's enclosing function ("main.NewController.func3.1" →
// "main.NewController"), a function's package ("main.enqueue" → "main").
func owner(name string) string {
	name = qualifier(name)
	for {
		last := name[strings.LastIndexByte(name, '.')+1:]
		if !closureSuffix(last) || !strings.Contains(name, ".") {
			return name
		}
		name = qualifier(name)
	}
}

// closureSuffix says whether a name's last element is one the compiler
// gives closures: "func3", or "1" for one nested in it.
func closureSuffix(s string) bool {
	s = strings.TrimPrefix(s, "func")
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// qualifier is name without its last dot-separated element.
func qualifier(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}
