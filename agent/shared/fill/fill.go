// Package fill sets every field of a value to something that is not zero,
// deterministically, for tests that pin or compare JSON: a field left out
// of a golden file or an adapter then shows.
package fill

import (
	"encoding"
	"reflect"
	"time"
)

// When is the base of every time filled in.
var When = time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC)

// Value returns a T with every exported field set: numbers to their
// position, strings to their type's name and position, booleans true,
// times to When plus their position in seconds, one element in slices and
// maps. A type that reads itself from text (a kind, an event type) gets
// the first of texts that it accepts.
func Value[T any](texts ...string) T {
	var v T
	set(reflect.ValueOf(&v).Elem(), 1, texts)
	return v
}

func set(v reflect.Value, n int, texts []string) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(When.Add(time.Duration(n) * time.Second)))
		return
	}
	if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok && v.Kind() != reflect.Struct {
		for _, t := range texts {
			if u.UnmarshalText([]byte(t)) == nil {
				return
			}
		}
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				set(v.Field(i), n+i, texts)
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		set(v.Elem(), n, texts)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		set(v.Index(0), n, texts)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		set(k, n, texts)
		set(e, n, texts)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString(v.Type().Name() + "-" + string(rune('a'+n%26)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
		v.SetInt(int64(n))
	case reflect.Uint, reflect.Uint64, reflect.Uint32, reflect.Uint16, reflect.Uint8:
		v.SetUint(uint64(n))
	case reflect.Float64, reflect.Float32:
		v.SetFloat(float64(n) + 0.5)
	}
}

// Zero lists the exported fields of v (a struct, or a pointer to one) that
// hold their zero value, by path ("Delivered.Sync"), looking into nested
// structs, pointers and the first element of slices: what an adapter left
// unfilled. A time.Time is a value, not a struct to look into.
func Zero(v any) []string {
	var out []string
	zero(reflect.ValueOf(v), "", &out)
	return out
}

func zero(v reflect.Value, path string, out *[]string) {
	if v.IsZero() || (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.Len() == 0 {
		*out = append(*out, path)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		zero(v.Elem(), path, out)
	case reflect.Slice:
		zero(v.Index(0), path+"[0]", out)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				p := f.Name
				if path != "" {
					p = path + "." + f.Name
				}
				zero(v.Field(i), p, out)
			}
		}
	}
}
