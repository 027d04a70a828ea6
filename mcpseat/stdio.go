package mcpseat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport is `vesper mcp`'s transport: newline-delimited JSON-RPC
// on In and Out, like the SDK's mcp.StdioTransport, except that a line
// that is not a JSON-RPC message is answered with a JSON-RPC error and
// the session goes on. The SDK's transport ends the session at the first
// such line (its reader returns the decoding error), so one stray line
// from a client, a shell or a log would stop the agent's seat (issue 30,
// item 10). Each line is checked with the SDK's own decoder before the
// SDK sees it: what passes, the SDK decodes too.
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// MaxLine bounds one line [mcp.DefaultMaxLineLength]; a longer one is
	// answered as a parse error and skipped.
	MaxLine int
}

// JSON-RPC 2.0 error codes for lines that are not a message.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// batchesSince is the first MCP version without JSON-RPC batches; the
// SDK ends a session that sends one after negotiating it or a later one.
const batchesSince = "2025-06-18"

// Connect starts the line filter and returns the SDK's connection over
// what passes it.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	maxLine := t.MaxLine
	if maxLine <= 0 {
		maxLine = mcp.DefaultMaxLineLength
	}
	pr, pw := io.Pipe()
	calls := newInFlight()
	out := &lockedWriter{w: t.Out, calls: calls}
	f := &lineFilter{in: bufio.NewReaderSize(t.In, 64<<10), pass: pw, reply: out, maxLine: maxLine, calls: calls}
	go f.run()
	return (&mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: maxLine + 1}).Connect(ctx)
}

// lockedWriter keeps the SDK's answers and the filter's whole: each Write
// is one line. It tells calls of each answer written.
type lockedWriter struct {
	mu    sync.Mutex
	w     io.Writer
	calls *inFlight
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.w.Write(p)
	if w.calls != nil {
		w.calls.answered(p)
	}
	return n, err
}

func (w *lockedWriter) Close() error { return nil }

type lineFilter struct {
	in      *bufio.Reader
	pass    *io.PipeWriter
	reply   io.Writer
	maxLine int
	proto   string // the protocol version the client's initialize asked for
	calls   *inFlight
}

// run passes each good line on until In ends or the session closes.
func (f *lineFilter) run() {
	for {
		line, err := f.readLine()
		if errors.Is(err, errLineTooLong) {
			f.answer(nil, codeParseError, fmt.Sprintf("Parse error: line longer than %d bytes", f.maxLine))
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if msg := f.check(line); msg != nil {
				if _, werr := f.pass.Write(msg); werr != nil {
					return // the session is closed
				}
			}
		}
		if err != nil {
			// The client closed its end: what it asked before is still
			// answered (issue 38 item 5) before the SDK sees the end.
			if f.calls != nil {
				f.calls.drain(drainWait)
			}
			f.pass.CloseWithError(err) // io.EOF: a clean end
			return
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line without its end; a line over maxLine is read
// through and reported as errLineTooLong.
func (f *lineFilter) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.in.ReadSlice('\n')
		if len(line)+len(chunk) > f.maxLine+2 { // room for "\r\n"
			line = nil
			if err == bufio.ErrBufferFull {
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = f.in.ReadSlice('\n')
				}
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// check returns the line to pass on (with its newline), or nil after
// answering it with an error.
func (f *lineFilter) check(line []byte) []byte {
	if !json.Valid(line) {
		f.answer(nil, codeParseError, "Parse error: the line is not one JSON value")
		return nil
	}
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] == '[' {
		if reason := f.checkBatch(trimmed); reason != "" {
			f.answer(nil, codeInvalidRequest, "Invalid Request: "+reason)
			return nil
		}
	} else if msg, err := jsonrpc.DecodeMessage(trimmed); err != nil {
		f.answer(requestID(trimmed), codeInvalidRequest, "Invalid Request: "+err.Error())
		return nil
	} else if req, ok := msg.(*jsonrpc.Request); ok {
		if f.calls != nil && req.IsCall() {
			f.calls.asked(trimmed)
		}
		if f.calls != nil && req.Method == "notifications/cancelled" {
			// MCP: a cancelled request gets no answer.
			f.calls.cancelled(req.Params)
		}
		if req.Method == "initialize" {
			f.initialize(req)
		}
	}
	return append(trimmed, '\n')
}

// initialize notes the protocol version the client asks for.
func (f *lineFilter) initialize(req *jsonrpc.Request) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(req.Params, &p)
	f.proto = p.ProtocolVersion
}

// checkBatch says why the SDK would end the session on this batch, or "".
func (f *lineFilter) checkBatch(line []byte) string {
	var items []json.RawMessage
	if err := json.Unmarshal(line, &items); err != nil || len(items) == 0 {
		return "an empty batch"
	}
	if f.proto == "" || f.proto >= batchesSince {
		return "JSON-RPC batches are not supported from MCP " + batchesSince + " on"
	}
	for _, it := range items {
		if _, err := jsonrpc.DecodeMessage(it); err != nil {
			return "a batch member: " + err.Error()
		}
	}
	return ""
}

// requestID is the id of a line that failed as a message, when it has a
// usable one (JSON-RPC: null when it cannot be told).
func requestID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// answer writes one JSON-RPC error response.
func (f *lineFilter) answer(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	_, _ = f.reply.Write(append(b, '\n'))
}
