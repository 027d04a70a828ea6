package testkit

import (
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
