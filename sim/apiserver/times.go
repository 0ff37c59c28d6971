package apiserver

import (
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	timeType      = reflect.TypeOf(metav1.Time{})
	microTimeType = reflect.TypeOf(metav1.MicroTime{})
)

// serializeTimes gives every timestamp in v the precision a real server's storage
// gives it: metav1.Time is serialized as RFC 3339 seconds (so a status field set to
// 12:00:00.456 reads back as 12:00:00), metav1.MicroTime to microseconds. It walks
// the value with reflection (structs, pointers, slices, maps of structs).
func serializeTimes(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			serializeTimes(v.Elem())
		}
	case reflect.Struct:
		switch v.Type() {
		case timeType:
			if v.CanAddr() {
				if t := v.Addr().Interface().(*metav1.Time); t.Nanosecond() != 0 {
					t.Time = t.Truncate(time.Second)
				}
			}
			return
		case microTimeType:
			if v.CanAddr() {
				if t := v.Addr().Interface().(*metav1.MicroTime); t.Nanosecond()%1000 != 0 {
					t.Time = t.Truncate(time.Microsecond)
				}
			}
			return
		}
		for _, i := range timeFields(v.Type()) {
			serializeTimes(v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		if !holdsTimeCached(v.Type().Elem()) {
			return
		}
		for i := 0; i < v.Len(); i++ {
			serializeTimes(v.Index(i))
		}
	case reflect.Map:
		// Map values are not addressable: copy, fix and store back the ones that
		// hold timestamps.
		if v.IsNil() || !holdsTimeCached(v.Type().Elem()) {
			return
		}
		iter := v.MapRange()
		for iter.Next() { // lint:order-independent each entry is fixed on its own
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(iter.Value())
			serializeTimes(e)
			v.SetMapIndex(iter.Key(), e)
		}
	}
}

// holdsTime reports whether values of t can contain a timestamp.
func holdsTime(t reflect.Type, depth int) bool {
	if depth > 8 {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return holdsTime(t.Elem(), depth+1)
	case reflect.Interface:
		return true
	case reflect.Struct:
		if t == timeType || t == microTimeType {
			return true
		}
		for i := 0; i < t.NumField(); i++ {
			if holdsTime(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}

// timeFieldCache holds, per struct type, the exported fields that can hold a
// timestamp; holdsCache, per type, whether it can. Both are computed once per type.
var (
	timeFieldCache sync.Map // reflect.Type -> []int
	holdsCache     sync.Map // reflect.Type -> bool
)

func timeFields(t reflect.Type) []int {
	if f, ok := timeFieldCache.Load(t); ok {
		return f.([]int)
	}
	var out []int
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).IsExported() && holdsTime(t.Field(i).Type, 0) {
			out = append(out, i)
		}
	}
	timeFieldCache.Store(t, out)
	return out
}

func holdsTimeCached(t reflect.Type) bool {
	if h, ok := holdsCache.Load(t); ok {
		return h.(bool)
	}
	h := holdsTime(t, 0)
	holdsCache.Store(t, h)
	return h
}
