package mcpseat_test

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/seat"
)

// startDemo runs `vesper demo --serve` (its embedded relay, its daemon and
// the house player) and returns the relay URL and the house's pubkey, read
// from what it prints.
func startDemo(t *testing.T) (url, house string) {
	t.Helper()
	cmd := exec.Command(binPath, "demo", "--serve", "--data", t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testkit.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(testkit.Scale(10 * time.Second)):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	serving := regexp.MustCompile(`^serving: relay (\S+), house ([0-9a-f]{64}) `)
	found := make(chan [2]string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				found <- [2]string{m[1], m[2]}
			}
		}
		close(found)
	}()
	select {
	case m, ok := <-found:
		if !ok {
			t.Fatalf("vesper demo --serve ended before serving (stderr: %s)", stderr.String())
		}
		return m[0], m[1]
	case <-time.After(testkit.Scale(90 * time.Second)):
		t.Fatalf("vesper demo --serve did not start serving (stderr: %s)", stderr.String())
	}
	return "", ""
}

// TestPlayTheHouse is issue 15's "done when": an MCP client plays a whole
// game against the house player of `vesper demo`, here challenging it,
// playing two moves from legal_moves, resigning and signing; the house signs
// too and the result is final.
func TestPlayTheHouse(t *testing.T) {
	testkit.QuickLoopSkips(t)
	t.Parallel()
	url, house := startDemo(t)
	a := startAgent(t, url, "house-guest")

	ch := ok[seat.Reply](a, "challenge", map[string]any{"game": "chess", "invite": house})
	played := 0
	for i := 0; i < 20; i++ {
		res := a.call("wait_turn", map[string]any{"match": ch.Match, "timeout_seconds": 60}, "house-wait")
		if res.IsError {
			t.Fatalf("wait_turn refused: %s", text(res))
		}
		w := decode[seat.Woke](t, res)
		switch w.Reason {
		case seat.WakeMyTurn:
			if played == 2 {
				ok[seat.Reply](a, "resign", map[string]any{"match": ch.Match})
				continue
			}
			st := ok[seat.Status](a, "game_state", map[string]any{"match": ch.Match})
			if len(st.LegalMoves) == 0 {
				t.Fatalf("my turn with no legal moves: %+v", st.Summary)
			}
			ok[seat.Reply](a, "play", map[string]any{"match": ch.Match, "move": st.LegalMoves[0].UCI})
			played++
		case seat.WakeGameOver:
			ok[seat.Reply](a, "sign_result", map[string]any{"match": ch.Match})
		case seat.WakeFinal:
			st := w.Status
			if st.Result == nil || *st.Result != "second" || st.Reason == nil || *st.Reason != "resignation" || st.Second == nil || *st.Second != house {
				t.Errorf("final state %+v", st.Summary)
			}
			return
		default:
			t.Fatalf("wait_turn woke for %q", w.Reason)
		}
	}
	t.Fatal("the game against the house did not become final")
}
