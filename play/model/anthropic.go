package model

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Anthropic is the Messages API.
type Anthropic struct {
	client  anthropic.Client
	baseURL string
	key     string
}

// DefaultAnthropicURL is the SDK's own default base URL.
const DefaultAnthropicURL = "https://api.anthropic.com"

// DefaultAnthropicMaxTokens is max_tokens when none is set: the Messages
// API requires one.
const DefaultAnthropicMaxTokens = 8192

// NewAnthropic makes the client from explicit settings only (the SDK's
// environment chain is off: the CLI reads ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL itself), with the SDK's retries off.
func NewAnthropic(baseURL, key string, hc *http.Client) *Anthropic {
	if baseURL == "" {
		baseURL = DefaultAnthropicURL
	}
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithBaseURL(baseURL), option.WithAPIKey(key), option.WithMaxRetries(0)}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return &Anthropic{client: anthropic.NewClient(opts...), baseURL: baseURL, key: key}
}

// KeyVar names the key's variable.
func (a *Anthropic) KeyVar() string { return "ANTHROPIC_API_KEY" }

// Endpoint is the base URL.
func (a *Anthropic) Endpoint() string { return a.baseURL }

// Stream asks for one message, streamed: text and thinking deltas, usage
// from message_start (input) and message_delta (output, cumulative).
func (a *Anthropic) Stream(ctx context.Context, model string, m Messages, s Settings, think func(string)) (Reply, error) {
	p := anthropic.MessageNewParams{
		Model:     model,
		MaxTokens: s.MaxTokens,
		System:    []anthropic.TextBlockParam{{Text: m.System}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(m.User))},
	}
	if p.MaxTokens <= 0 {
		p.MaxTokens = DefaultAnthropicMaxTokens
	}
	if s.ReasoningEffort != "" {
		p.OutputConfig.Effort = anthropic.OutputConfigEffort(s.ReasoningEffort)
	}
	var opts []option.RequestOption
	if s.Temperature != nil {
		opts = append(opts, option.WithJSONSet("temperature", *s.Temperature))
	}
	st := a.client.Messages.NewStreaming(ctx, p, opts...)
	defer st.Close()
	var r Reply
	var text, thinking strings.Builder
	for st.Next() {
		ev := st.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			if u.JSON.InputTokens.Valid() {
				r.Input = num(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens)
			}
			if u.JSON.OutputTokens.Valid() {
				r.Output = num(u.OutputTokens)
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				text.WriteString(ev.Delta.Text)
				think(ev.Delta.Text)
			case "thinking_delta":
				thinking.WriteString(ev.Delta.Thinking)
				think(ev.Delta.Thinking)
			}
		case "message_delta":
			if ev.Usage.JSON.OutputTokens.Valid() {
				r.Output = num(ev.Usage.OutputTokens)
			}
			if ev.Delta.StopReason == anthropic.StopReasonMaxTokens {
				r.CutOff = true
			}
		}
	}
	r.Text, r.Thinking = text.String(), thinking.String()
	if err := st.Err(); err != nil {
		return r, a.fault(err)
	}
	return r, nil
}

func (a *Anthropic) fault(err error) error {
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		e := &APIError{Status: ae.StatusCode, Message: redact(errorMessage(ae.RawJSON()), a.key)}
		if ae.Response != nil {
			e.RetryAfter = retryAfter(ae.Response.Header, time.Now())
		}
		return e
	}
	return otherFault(err, a.key)
}
