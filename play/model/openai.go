package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI is any Chat Completions endpoint: OpenAI itself, OpenRouter,
// Together, Groq, DeepSeek, vLLM, llama.cpp's server, Ollama's /v1.
type OpenAI struct {
	client  openai.Client
	baseURL string
	key     string
}

// DefaultOpenAIURL is the SDK's own default base URL.
const DefaultOpenAIURL = "https://api.openai.com/v1"

// NewOpenAI makes the client; the SDK's retries are off (Player retries,
// honouring the answer time).
func NewOpenAI(baseURL, key string, hc *http.Client) *OpenAI {
	if baseURL == "" {
		baseURL = DefaultOpenAIURL
	}
	opts := []option.RequestOption{option.WithBaseURL(baseURL), option.WithAPIKey(key), option.WithMaxRetries(0)}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return &OpenAI{client: openai.NewClient(opts...), baseURL: baseURL, key: key}
}

// KeyVar names the key's variable.
func (o *OpenAI) KeyVar() string { return "OPENAI_API_KEY" }

// Endpoint is the base URL.
func (o *OpenAI) Endpoint() string { return o.baseURL }

// Stream asks for one completion, streamed with its usage
// (stream_options.include_usage).
func (o *OpenAI) Stream(ctx context.Context, model string, m Messages, s Settings, think func(string)) (Reply, error) {
	p := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(model),
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(m.System), openai.UserMessage(m.User)},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if s.Temperature != nil {
		p.Temperature = openai.Float(*s.Temperature)
	}
	if s.MaxTokens > 0 {
		p.MaxCompletionTokens = openai.Int(s.MaxTokens)
	}
	if s.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(s.ReasoningEffort)
	}
	st := o.client.Chat.Completions.NewStreaming(ctx, p)
	defer st.Close()
	var r Reply
	var text, thinking strings.Builder
	for st.Next() {
		ch := st.Current()
		for _, c := range ch.Choices {
			if c.Index != 0 {
				continue
			}
			// DeepSeek, OpenRouter and vLLM stream reasoning beside the
			// content, under one of these names.
			for _, k := range []string{"reasoning_content", "reasoning"} {
				if f, ok := c.Delta.JSON.ExtraFields[k]; ok {
					var t string
					if json.Unmarshal([]byte(f.Raw()), &t) == nil && t != "" {
						thinking.WriteString(t)
						think(t)
					}
				}
			}
			if c.Delta.Content != "" {
				text.WriteString(c.Delta.Content)
				think(c.Delta.Content)
			}
			if c.FinishReason == "length" {
				r.CutOff = true
			}
		}
		if ch.JSON.Usage.Valid() && ch.Usage.JSON.CompletionTokens.Valid() {
			u := ch.Usage
			r.Input, r.Output = num(u.PromptTokens), num(u.CompletionTokens)
			if u.CompletionTokensDetails.JSON.ReasoningTokens.Valid() {
				r.Reasoning = num(u.CompletionTokensDetails.ReasoningTokens)
			}
		}
	}
	r.Text, r.Thinking = text.String(), thinking.String()
	if err := st.Err(); err != nil {
		return r, o.fault(err)
	}
	return r, nil
}

func (o *OpenAI) fault(err error) error {
	var ae *openai.Error
	if errors.As(err, &ae) {
		e := &APIError{Status: ae.StatusCode, Message: ae.Message}
		if e.Message == "" {
			e.Message = errorMessage(ae.RawJSON())
		}
		if ae.Response != nil {
			e.RetryAfter = retryAfter(ae.Response.Header, time.Now())
		}
		e.Message = redact(e.Message, o.key)
		return e
	}
	return otherFault(err, o.key)
}

func num(n int64) *float64 {
	v := float64(n)
	return &v
}

// errorMessage reads error.message from an API error body, the field both
// providers put their explanation in; "" when the body has none.
func errorMessage(raw string) string {
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(raw), &body) != nil {
		return ""
	}
	return body.Error.Message
}
