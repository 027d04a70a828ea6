package mcpseat

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vesper/seat"
)

const (
	// defaultWait is wait_turn's timeout when the call gives none. It is
	// under the 60 s a host built on the MCP TypeScript SDK gives a request
	// by default (with a margin for the answer's way back), so a plain call
	// returns "timeout" and the model calls again, instead of the host
	// failing the call. Hosts that reset their timeout on progress
	// (resetTimeoutOnProgress) can ask for up to maxWait.
	defaultWait = 50 * time.Second
	maxWait     = 3600 * time.Second
	// progressEvery is how often a waiting call tells the client it is
	// alive: clients commonly cancel a request that stays silent for a
	// minute or so.
	progressEvery = 5 * time.Second
)

// zeroWait refuses a wait of 0 s: it once meant the default, and a model
// that asks for no wait wants game_state.
func zeroWait() *Refusal {
	return refuse(RuleBadArgument, "timeout_seconds must be at least 1 (the default is %d); to read the match without waiting, call game_state",
		int(defaultWait.Seconds()))
}

// check gives timeout_seconds 0 (or less) zeroWait's refusal instead of the
// validator's "minimum: 0/1 is less than 1".
func (WaitArgs) check(args map[string]any) *Refusal {
	if v, ok := args["timeout_seconds"].(float64); ok && v < 1 {
		return zeroWait()
	}
	return nil
}

func (t *tools) waitTurn(ctx context.Context, req *mcp.CallToolRequest, in WaitArgs) (*seat.Woke, *Refusal) {
	// The schema's default and minimum make an absent timeout defaultWait
	// and refuse 0 (which once meant 300 s); this guards a caller that
	// skips the schema.
	if in.TimeoutSeconds < 1 {
		return nil, zeroWait()
	}
	d := min(time.Duration(in.TimeoutSeconds)*time.Second, maxWait)
	opts := seat.WaitOptions{Timeout: d, ProgressEvery: progressEvery, Seen: in.Seen}
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		// The first notification goes out at once, so a client knows the
		// wait began; the others follow the seat's progress (new events,
		// and a beat every progressEvery). Progress must increase: the
		// elapsed milliseconds do, and the total is the timeout.
		var last float64
		notify := func(elapsed time.Duration, msg string) {
			p := max(float64(elapsed.Milliseconds())/1000, last+0.001)
			last = p
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: p, Total: d.Seconds(), Message: msg,
			})
		}
		notify(0, fmt.Sprintf("waiting on match %s (at most %s)", in.Match, d))
		opts.Progress = func(p seat.Progress) {
			notify(p.Elapsed, fmt.Sprintf("waiting: %s elapsed, %d relay(s) live, %d event(s) of the match seen", p.Elapsed.Round(time.Second), p.Connected, p.Events))
		}
	}
	woke, err := t.seat.Wait(ctx, in.Match, opts)
	if err != nil {
		return nil, refusalOf(err)
	}
	return woke, nil
}
