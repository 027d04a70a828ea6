package testkit

import (
	"runtime"
	"testing"
	"time"
)

func TestScale(t *testing.T) {
	for _, c := range []struct {
		env  string
		want time.Duration
	}{
		{"", time.Second},
		{"junk", time.Second},
		{"0.5", time.Second},
		{"3", 3 * time.Second},
		{"2.5", 2500 * time.Millisecond},
	} {
		t.Setenv(ScaleEnv, c.env)
		if got := Scale(time.Second); got != c.want {
			t.Errorf("%s=%q: Scale(1s) = %v, want %v", ScaleEnv, c.env, got, c.want)
		}
	}
}

// fatalTB records a Fatalf instead of ending the test, to see WaitFor fail.
type fatalTB struct {
	testing.TB
	failed bool
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(string, ...any) {
	f.failed = true
	runtime.Goexit()
}

func TestWaitFor(t *testing.T) {
	t.Setenv(ScaleEnv, "")
	n := 0
	WaitFor(t, "the third call", time.Minute, func() bool { n++; return n == 3 })
	if n != 3 {
		t.Errorf("cond called %d times, want 3", n)
	}
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		WaitFor(f, "never", 20*time.Millisecond, func() bool { return false })
	}()
	<-done
	if !f.failed {
		t.Error("a cond that never holds did not fail the test")
	}
}
