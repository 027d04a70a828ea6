package play

import (
	"encoding/json"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/seat"
)

// An agent playing Connect Four is given the text board, its colour and
// the columns it may play (PROTOCOL.md section 5.1), and the runner's
// fallback picks one of those columns.
func TestRequestConnect4(t *testing.T) {
	red, yellow := testkit.Key("play c4 red"), testkit.Key("play c4 yellow")
	const t0 = int64(1_750_000_000)
	m := testkit.NewMatch(red, yellow, nostr.GameConnect4, "", t0)
	m.Accept(t0 + 10)
	m.Play(strings.Split("aaaaaad", ""), t0+20, 10) // a is full
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	stt := (&seat.Snapshot{State: st}).Status(yellow.PublicKey(), t0+500)
	req := (&worker{}).request(RequestMove, stt, 1, nil)
	var cols []string
	for _, l := range req.Legal {
		cols = append(cols, l.Move())
	}
	if got := strings.Join(cols, ","); got != "b,c,d,e,f,g" {
		t.Errorf("legal columns %s, want b..g", got)
	}
	if req.Color != "yellow" || req.Game != nostr.GameConnect4 || !strings.Contains(req.Board, "R . . R") || req.Ply != 8 {
		t.Errorf("request: color %q game %q ply %d board\n%s", req.Color, req.Game, req.Ply, req.Board)
	}
	b, _ := json.Marshal(req)
	if !strings.Contains(string(b), `"legal_moves":[{"column":"b"}`) {
		t.Errorf("the agent's JSON lists no columns: %s", b)
	}
}
