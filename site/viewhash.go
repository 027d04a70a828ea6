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
func hashView(h hash.Hash, v reflect.Value) { (&viewHasher{h: h}).value(v, 0) }

// maxViewDepth stops a cycle of pointers (no view has one, but a hash must
// not be the thing that hangs a build); a view nested deeper hashes alike
// below it and only risks a stale page.
const maxViewDepth = 32

// viewHasher writes values into h.
type viewHasher struct {
	h hash.Hash
	n [8]byte
}

func (w *viewHasher) num(x uint64) {
	binary.BigEndian.PutUint64(w.n[:], x)
	w.h.Write(w.n[:])
}

func (w *viewHasher) str(s string) {
	w.num(uint64(len(s)))
	w.h.Write([]byte(s))
}

// value writes v, found depth values deep in the view.
func (w *viewHasher) value(v reflect.Value, depth int) {
	if !v.IsValid() || depth > maxViewDepth {
		w.str("invalid")
		return
	}
	switch v.Kind() {
	case reflect.String:
		w.str(v.String())
	case reflect.Bool:
		if v.Bool() {
			w.num(1)
		} else {
			w.num(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.num(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.num(v.Uint())
	case reflect.Float32, reflect.Float64:
		w.num(math.Float64bits(v.Float()))
	case reflect.Struct:
		w.str(v.Type().String())
		for i := range v.NumField() {
			w.value(v.Field(i), depth+1)
		}
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Pointer, reflect.Interface:
		w.container(v, depth)
	default:
		// Funcs and channels have no content a page could print.
		w.str(v.Kind().String())
	}
}

// container writes a slice, array, map, pointer or interface: nil as
// such, lists with their length, maps in key order, pointers and
// interfaces by what they hold.
func (w *viewHasher) container(v reflect.Value, depth int) {
	if v.Kind() != reflect.Array && v.IsNil() {
		w.str("nil")
		return
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		w.num(uint64(v.Len()))
		for i := range v.Len() {
			w.value(v.Index(i), depth+1)
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(keyString(a), keyString(b)) })
		w.num(uint64(len(keys)))
		for _, k := range keys {
			w.value(k, depth+1)
			w.value(v.MapIndex(k), depth+1)
		}
	default: // pointer or interface
		if v.Kind() == reflect.Interface {
			w.str(v.Elem().Type().String())
		}
		w.value(v.Elem(), depth+1)
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
