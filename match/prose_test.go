package match

import "testing"

func TestSpan(t *testing.T) {
	cases := []struct {
		seconds   int64
		span, adj string
	}{
		{86400, "24 hours", "24-hour"},
		{604800, "7 days", "7-day"},
		{300, "5 minutes", "5-minute"},
		{3600, "1 hour", "1-hour"},
		{1800, "30 minutes", "30-minute"},
		{43200, "12 hours", "12-hour"},
		{86400 + 3600, "25 hours", "25-hour"},
		{90, "90 seconds", "90-second"},
		{1, "1 second", "1-second"},
		{0, "0 seconds", "0-second"},
	}
	for _, c := range cases {
		if got := Span(c.seconds); got != c.span {
			t.Errorf("Span(%d) = %q, want %q", c.seconds, got, c.span)
		}
		if got := SpanAdj(c.seconds); got != c.adj {
			t.Errorf("SpanAdj(%d) = %q, want %q", c.seconds, got, c.adj)
		}
	}
}
