package site

import (
	"encoding/binary"
	"hash"
	"math"
	"reflect"
	"slices"
	"strings"
)

// hashView writes every value reachable from v into h, unexported fields
// included (a view's methods may read them), each string with its length
// so that no two views write alike, maps in key order and pointers by
// what they point to. It is what viewKey used fmt's %#v for, at a third of
// the cost: %#v quotes every string, and an update printed every player's
// and archive page's view.
func hashView(h hash.Hash, v reflect.Value) { hashDepth(h, v, 0) }

// maxViewDepth stops a cycle of pointers (no view has one, but a hash must
// not be the thing that hangs a build); a view nested deeper hashes alike
// below it and only risks a stale page.
const maxViewDepth = 32

func hashDepth(h hash.Hash, v reflect.Value, depth int) {
	var n [8]byte
	num := func(x uint64) {
		binary.BigEndian.PutUint64(n[:], x)
		h.Write(n[:])
	}
	str := func(s string) {
		num(uint64(len(s)))
		h.Write([]byte(s))
	}
	if !v.IsValid() || depth > maxViewDepth {
		str("invalid")
		return
	}
	switch v.Kind() {
	case reflect.String:
		str(v.String())
	case reflect.Bool:
		if v.Bool() {
			num(1)
		} else {
			num(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		num(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		num(v.Uint())
	case reflect.Float32, reflect.Float64:
		num(math.Float64bits(v.Float()))
	case reflect.Struct:
		str(v.Type().String())
		for i := range v.NumField() {
			hashDepth(h, v.Field(i), depth+1)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			str("nil")
			return
		}
		num(uint64(v.Len()))
		for i := range v.Len() {
			hashDepth(h, v.Index(i), depth+1)
		}
	case reflect.Map:
		if v.IsNil() {
			str("nil")
			return
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(keyString(a), keyString(b)) })
		num(uint64(len(keys)))
		for _, k := range keys {
			hashDepth(h, k, depth+1)
			hashDepth(h, v.MapIndex(k), depth+1)
		}
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			str("nil")
			return
		}
		if v.Kind() == reflect.Interface {
			str(v.Elem().Type().String())
		}
		hashDepth(h, v.Elem(), depth+1)
	default:
		// Funcs and channels have no content a page could print.
		str(v.Kind().String())
	}
}

// keyString orders map keys: the views' maps are keyed by strings or
// numbers.
func keyString(k reflect.Value) string {
	switch k.Kind() {
	case reflect.String:
		return k.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(k.Int())^(1<<63))
		return string(b[:])
	}
	return k.Type().String()
}
