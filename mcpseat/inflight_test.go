package mcpseat

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vesper/internal/testkit"
)

// Issue 38 item 5: a client that closes stdin while a call is running
// still gets its answer before the server ends (the SDK's session ended
// at once and dropped it).
func TestAnswerInFlightAfterStdinCloses(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	started, release := make(chan struct{}), make(chan struct{})
	type none struct{}
	mcp.AddTool(srv, &mcp.Tool{Name: "slow", Description: "waits"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, none, error) {
		close(started)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done slowly"}}}, none{}, nil
	})
	inR, inW := io.Pipe()
	out := &testkit.Buffer{}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(time.Minute))
	defer cancel()
	ended := make(chan error, 1)
	go func() { ended <- srv.Run(ctx, &StdioTransport{In: inR, Out: out}) }()
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`,
	} {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	<-started
	inW.Close()
	select {
	case <-ended: // the server ended with the call unanswered
	case <-time.After(200 * time.Millisecond): // expected to fire: it waits for the call
	}
	close(release)
	select {
	case <-ended:
	case <-ctx.Done():
		t.Fatal("the server did not end after answering")
	}
	if !strings.Contains(out.String(), `"id":2`) || !strings.Contains(out.String(), "done slowly") {
		t.Errorf("no answer to the call in flight; the server wrote:\n%s", out.String())
	}
}
