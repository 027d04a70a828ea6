package mcpseat

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vesper/seat"
)

const (
	defaultWait = 300 * time.Second
	maxWait     = 3600 * time.Second
	// progressEvery is how often a waiting call tells the client it is
	// alive: clients commonly cancel a request that stays silent for a
	// minute or so.
	progressEvery = 5 * time.Second
)

func (t *tools) waitTurn(ctx context.Context, req *mcp.CallToolRequest, in WaitArgs) (*seat.Woke, *Refusal) {
	d := defaultWait
	if in.TimeoutSeconds > 0 {
		d = min(time.Duration(in.TimeoutSeconds)*time.Second, maxWait)
	}
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
