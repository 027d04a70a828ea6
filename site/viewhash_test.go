package site

import (
	"crypto/sha256"
	"reflect"
	"testing"
)

type hv struct {
	A, B   string
	n      int
	P      *hv
	M      map[string]int
	L      []string
	Any    any
	hidden bool
}

func viewSum(v any) [32]byte {
	h := sha256.New()
	hashView(h, reflect.ValueOf(v))
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// TestHashViewTellsViewsApart: a view key changes with anything a template
// or a view's method could read, and not with map order.
func TestHashViewTellsViewsApart(t *testing.T) {
	base := func() hv {
		return hv{A: "ab", B: "c", n: 1, P: &hv{A: "inner"}, M: map[string]int{"x": 1, "y": 2}, L: []string{"a"}, Any: 3}
	}
	changes := map[string]func(*hv){
		"string boundary": func(v *hv) { v.A, v.B = "a", "bc" },
		"unexported int":  func(v *hv) { v.n = 2 },
		"unexported bool": func(v *hv) { v.hidden = true },
		"pointed-to":      func(v *hv) { v.P = &hv{A: "other"} },
		"nil pointer":     func(v *hv) { v.P = nil },
		"map value":       func(v *hv) { v.M["y"] = 3 },
		"map key":         func(v *hv) { v.M = map[string]int{"x": 1, "z": 2} },
		"nil slice":       func(v *hv) { v.L = nil },
		"empty slice":     func(v *hv) { v.L = []string{} },
		"slice element":   func(v *hv) { v.L = []string{"b"} },
		"interface type":  func(v *hv) { v.Any = int64(3) },
	}
	want := viewSum(base())
	if again := base(); viewSum(again) != want {
		t.Fatal("equal views hash differently")
	}
	seen := map[[32]byte]string{}
	for name, change := range changes {
		v := base()
		change(&v)
		got := viewSum(v)
		if got == want {
			t.Errorf("%s: same key", name)
		}
		if other, ok := seen[got]; ok {
			t.Errorf("%s and %s: same key", name, other)
		}
		seen[got] = name
	}
	// Map order does not matter.
	a := base()
	a.M = map[string]int{}
	for _, k := range []string{"y", "x"} {
		a.M[k] = map[string]int{"x": 1, "y": 2}[k]
	}
	if viewSum(a) != want {
		t.Error("map insertion order changed the key")
	}
	// A cycle ends.
	c := &hv{}
	c.P = c
	_ = viewSum(c)
}
