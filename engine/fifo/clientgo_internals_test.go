package fifo

import (
	"reflect"
	"testing"
	"unsafe"
)

// refField returns a settable view of the unexported field name of the
// client-go queue that ptr points to, which the differential tests read
// (and, for RealFIFO's batchSize, write) because v0.37 exposes no accessor.
// When client-go's layout changes the test fails with a message naming the
// field, instead of panicking inside reflect or comparing nothing. Use it
// only from the goroutine that drives the queue, while nothing else does.
func refField(t testing.TB, ptr any, name string, want reflect.Type) reflect.Value {
	t.Helper()
	v := reflect.ValueOf(ptr).Elem().FieldByName(name)
	if !v.IsValid() || v.Type() != want {
		t.Fatalf("client-go's %T no longer has a field %s of type %v, which the differential tests read; update refField's callers to its new layout", ptr, name, want)
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}
