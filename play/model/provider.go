package model

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Settings are the generation settings, the same for every call of a run
// and written into the record. Zero values are unset: the provider's
// default applies.
type Settings struct {
	Temperature     *float64
	MaxTokens       int64
	ReasoningEffort string
}

// String is the settings as the record shows them; "" when none is set.
func (s Settings) String() string {
	var parts []string
	if s.Temperature != nil {
		parts = append(parts, "temperature="+strconv.FormatFloat(*s.Temperature, 'g', -1, 64))
	}
	if s.MaxTokens > 0 {
		parts = append(parts, "max_tokens="+strconv.FormatInt(s.MaxTokens, 10))
	}
	if s.ReasoningEffort != "" {
		parts = append(parts, "reasoning_effort="+s.ReasoningEffort)
	}
	return strings.Join(parts, " ")
}

// Reply is one call's answer as the API streamed it. A nil count is one
// the API did not report.
type Reply struct {
	Text     string // the visible answer
	Thinking string // the provider's separate reasoning stream, if any
	Input    *float64
	Output   *float64
	// Reasoning is the part of Output spent on hidden reasoning, where the
	// API says.
	Reasoning *float64
	// CutOff: the answer stopped at the token limit.
	CutOff bool
}

// Provider streams one call. think receives each piece of text (thinking
// or visible) as it arrives.
type Provider interface {
	Stream(ctx context.Context, model string, m Messages, s Settings, think func(string)) (Reply, error)
	// KeyVar is the environment variable holding the provider's key.
	KeyVar() string
	// Endpoint is the base URL, for messages (it holds no key).
	Endpoint() string
}

// APIError is an HTTP error of the provider's API, with the message of
// its body (never the request: its headers carry the key).
type APIError struct {
	Status     int
	RetryAfter time.Duration // 0: none given
	Message    string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// retryAfter reads Retry-After (seconds or an HTTP date) and the
// millisecond Retry-After-Ms some OpenAI-compatible servers send.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// unreachable reports whether err is a failure to reach the endpoint at
// all (no HTTP answer).
func unreachable(err error) bool {
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	return errors.As(err, &oe) || errors.As(err, &de) || (errors.As(err, &ne) && !errors.Is(err, context.DeadlineExceeded))
}

// NetError is a failure to reach the endpoint: no HTTP answer came.
type NetError struct{ Msg string }

func (e *NetError) Error() string { return e.Msg }

// otherFault wraps what is not an HTTP error, the key redacted.
func otherFault(err error, key string) error {
	if unreachable(err) {
		return &NetError{Msg: redact(err.Error(), key)}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return errors.New(redact(err.Error(), key))
}

// redact removes the key from a message, whatever produced it.
func redact(s, key string) string {
	if len(key) >= 4 {
		s = strings.ReplaceAll(s, key, "[key]")
	}
	return s
}
