package site

import (
	"errors"
	"sync/atomic"
	"testing"
)

// parallel calls every index once, and returns an error a call gave.
func TestParallel(t *testing.T) {
	var calls [100]atomic.Int32
	if err := parallel(len(calls), func(i int) error { calls[i].Add(1); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := range calls {
		if n := calls[i].Load(); n != 1 {
			t.Errorf("index %d called %d times", i, n)
		}
	}
	bad := errors.New("bad page")
	if err := parallel(50, func(i int) error {
		if i == 7 {
			return bad
		}
		return nil
	}); !errors.Is(err, bad) {
		t.Errorf("error %v, want %v", err, bad)
	}
	if err := parallel(0, func(int) error { t.Error("called with n 0"); return nil }); err != nil {
		t.Error(err)
	}
}
