package model

import (
	"net/http"
	"testing"
	"time"
)

// TestRetryAfter: seconds, an HTTP date, milliseconds (Retry-After-Ms,
// which wins), and nothing for a malformed or past value.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{http.Header{"Retry-After": {"7"}, "Retry-After-Ms": {"250"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0},
		{nil, 0},
	} {
		if got := retryAfter(tc.h, now); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.h, got, tc.want)
		}
	}
	if got := redact("bad key sk-abc123 given", "sk-abc123"); got != "bad key [key] given" {
		t.Errorf("redact: %q", got)
	}
}
