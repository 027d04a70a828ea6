// Package standin is a loopback stand-in for the providers' APIs, for
// tests: the OpenAI Chat Completions and Anthropic Messages wire formats
// as their API references describe them (JSON requests, server-sent event
// streams with usage, error bodies, Retry-After), answering a chess or
// gomoku prompt of package model with a move from its legal-move list.
package standin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// Fault is one scripted answer instead of a move: an HTTP status with
// its headers, or (Status 0) an answer text of the script's own.
type Fault struct {
	Status     int
	RetryAfter string // the Retry-After header, "" for none
	Text       string // with Status 0: the text the model answers
	CutOff     bool   // with Status 0: the stream stops at max_tokens
}

// Server is a stand-in endpoint.
type Server struct {
	URL    string
	Key    string
	Models []string // the models it knows

	mu       sync.Mutex
	faults   []Fault
	Requests []Request
	// Output is the sum of the output tokens reported in usage.
	Output int
	calls  int
}

// Request is what the stand-in was asked.
type Request struct {
	Model, System, User string
	Body                map[string]any
}

// Script queues faults answered before the next moves, in order.
func (s *Server) Script(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f...)
}

// Calls is how many requests were answered (faults included).
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Total is the output tokens reported so far.
func (s *Server) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Output
}

// LastUser is the last prompt's user turn.
func (s *Server) LastUser() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.Requests) == 0 {
		return ""
	}
	return s.Requests[len(s.Requests)-1].User
}

// OpenAI starts a Chat Completions stand-in (POST {base}/chat/completions,
// Authorization: Bearer KEY).
func OpenAI(t testing.TB, key string, models ...string) *Server {
	s := &Server{Key: key, Models: models}
	h := httptest.NewServer(http.HandlerFunc(s.openai))
	t.Cleanup(h.Close)
	s.URL = h.URL + "/v1"
	return s
}

// Anthropic starts a Messages stand-in (POST {base}/v1/messages, x-api-key).
func Anthropic(t testing.TB, key string, models ...string) *Server {
	s := &Server{Key: key, Models: models}
	h := httptest.NewServer(http.HandlerFunc(s.anthropic))
	t.Cleanup(h.Close)
	s.URL = h.URL
	return s
}

// take reads the request and picks the answer: a fault or a move.
func (s *Server) take(r *http.Request, system, user func(map[string]any) string) (Request, Fault, bool) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	req := Request{Body: body}
	req.Model, _ = body["model"].(string)
	req.System, req.User = system(body), user(body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.Requests = append(s.Requests, req)
	if len(s.faults) > 0 {
		f := s.faults[0]
		s.faults = s.faults[1:]
		return req, f, true
	}
	return req, Fault{}, false
}

func (s *Server) known(m string) bool {
	for _, k := range s.Models {
		if k == m {
			return true
		}
	}
	return false
}

// Answer is the stand-in model's text for a prompt: a line of thought and
// the JSON block naming the first legal move of the list.
func Answer(user string) string {
	mv := FirstLegal(user)
	return fmt.Sprintf("Looking at the position, %s keeps things simple.\n```json\n{\"move\": %q, \"comment\": \"A quiet move.\"}\n```", mv, mv)
}

// FirstLegal is the first move of the prompt's legal-move list.
func FirstLegal(user string) string {
	_, rest, ok := strings.Cut(user, "Legal moves (choose exactly one):\n")
	if !ok {
		return "none"
	}
	line, _, _ := strings.Cut(rest, "\n")
	f := strings.Fields(line)
	if len(f) == 0 {
		return "none"
	}
	return f[0]
}

// pieces splits a text into stream chunks of a few words.
func pieces(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(len(s), 12)
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++ // a chunk ends on a character boundary, as the APIs stream
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// tokens is the stand-in's token count of a text: one per 4 bytes.
func tokens(s string) int { return (len(s) + 3) / 4 }

func sse(w http.ResponseWriter, event string, v any) {
	b, _ := json.Marshal(v)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func jsonError(w http.ResponseWriter, status int, retryAfter string, body any) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func (s *Server) openai(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		jsonError(w, 404, "", map[string]any{"error": map[string]any{"message": "Invalid URL (" + r.Method + " " + r.URL.Path + ")", "type": "invalid_request_error", "code": nil}})
		return
	}
	msg := func(role string) func(map[string]any) string {
		return func(b map[string]any) string {
			ms, _ := b["messages"].([]any)
			for _, m := range ms {
				mm, _ := m.(map[string]any)
				if mm["role"] == role {
					c, _ := mm["content"].(string)
					return c
				}
			}
			return ""
		}
	}
	req, f, scripted := s.take(r, msg("system"), msg("user"))
	if got := r.Header.Get("Authorization"); got != "Bearer "+s.Key {
		key := strings.TrimPrefix(got, "Bearer ")
		// OpenAI's own message quotes the key it was given.
		jsonError(w, 401, "", map[string]any{"error": map[string]any{"message": "Incorrect API key provided: " + key + ". You can find your API key at https://platform.openai.com/account/api-keys.",
			"type": "invalid_request_error", "param": nil, "code": "invalid_api_key"}})
		return
	}
	if !s.known(req.Model) {
		jsonError(w, 404, "", map[string]any{"error": map[string]any{"message": "The model `" + req.Model + "` does not exist or you do not have access to it.",
			"type": "invalid_request_error", "param": nil, "code": "model_not_found"}})
		return
	}
	if scripted && f.Status != 0 {
		jsonError(w, f.Status, f.RetryAfter, map[string]any{"error": map[string]any{"message": http.StatusText(f.Status), "type": "requests", "param": nil, "code": nil}})
		return
	}
	text := Answer(req.User)
	if scripted {
		text = f.Text
	}
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("chatcmpl-%d", s.Calls())
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	}
	sse(w, "", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, p := range pieces(text) {
		sse(w, "", chunk(map[string]any{"content": p}, nil))
	}
	finish := "stop"
	if f.CutOff {
		finish = "length"
	}
	sse(w, "", chunk(map[string]any{}, finish))
	out, reasoning := tokens(text)+7, 7
	s.mu.Lock()
	s.Output += out
	s.mu.Unlock()
	in := tokens(req.System + req.User)
	sse(w, "", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": req.Model, "choices": []any{},
		"usage": map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out,
			"completion_tokens_details": map[string]any{"reasoning_tokens": reasoning}}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (s *Server) anthropic(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		jsonError(w, 404, "", map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "Not found"}})
		return
	}
	system := func(b map[string]any) string {
		var out []string
		sys, _ := b["system"].([]any)
		for _, x := range sys {
			m, _ := x.(map[string]any)
			t, _ := m["text"].(string)
			out = append(out, t)
		}
		return strings.Join(out, "\n")
	}
	user := func(b map[string]any) string {
		ms, _ := b["messages"].([]any)
		for _, m := range ms {
			mm, _ := m.(map[string]any)
			cs, _ := mm["content"].([]any)
			for _, c := range cs {
				cm, _ := c.(map[string]any)
				if t, ok := cm["text"].(string); ok {
					return t
				}
			}
		}
		return ""
	}
	req, f, scripted := s.take(r, system, user)
	// The API takes the key as x-api-key; the v2 Go SDK sends it as a
	// bearer token, which the API also takes.
	if r.Header.Get("x-api-key") != s.Key && r.Header.Get("Authorization") != "Bearer "+s.Key {
		jsonError(w, 401, "", map[string]any{"type": "error", "error": map[string]any{"type": "authentication_error", "message": "invalid x-api-key"}})
		return
	}
	if !s.known(req.Model) {
		jsonError(w, 404, "", map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "model: " + req.Model}})
		return
	}
	if scripted && f.Status != 0 {
		typ := map[int]string{429: "rate_limit_error", 529: "overloaded_error", 500: "api_error", 403: "permission_error"}[f.Status]
		jsonError(w, f.Status, f.RetryAfter, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": http.StatusText(f.Status)}})
		return
	}
	text := Answer(req.User)
	if scripted {
		text = f.Text
	}
	thinking := "I weigh the listed moves."
	in := tokens(req.System + req.User)
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_standin", "type": "message", "role": "assistant",
		"content": []any{}, "model": req.Model, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
	sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "thinking_delta", "thinking": thinking}})
	sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "signature_delta", "signature": "c2ln"}})
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 1, "content_block": map[string]any{"type": "text", "text": ""}})
	for _, p := range pieces(text) {
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 1, "delta": map[string]any{"type": "text_delta", "text": p}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 1})
	stop := "end_turn"
	if f.CutOff {
		stop = "max_tokens"
	}
	out := tokens(thinking) + tokens(text)
	s.mu.Lock()
	s.Output += out
	s.mu.Unlock()
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": out}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}
