package mcpseat_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/seat"
)

// TestOfferDraw: one player offers a draw with offer_result; the other's
// wait_turn wakes for the offer, shows it, and offering the same result
// accepts it: the draw is final by both signatures, reason agreement.
func TestOfferDraw(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	a := startAgent(t, r.URL(), "offer-a")
	b := startAgent(t, r.URL(), "offer-b")
	ch := ok[seat.Reply](a, "challenge", map[string]any{"game": "gomoku", "invite": b.pk})
	m := map[string]any{"match": ch.Match}
	ok[seat.Reply](b, "accept", m)
	ok[seat.Reply](a, "play", map[string]any{"match": ch.Match, "move": "h8"})

	// It is b's turn, so b's wait returns at once.
	if w := ok[seat.Woke](b, "wait_turn", map[string]any{"match": ch.Match, "timeout_seconds": 60}); w.Reason != seat.WakeMyTurn {
		t.Fatalf("b's first wait: %+v", w)
	}
	ok[seat.Reply](b, "play", map[string]any{"match": ch.Match, "move": "a1"})

	// b now waits for a; a offers only once b's wait reports its
	// subscription live (a progress notification), so that the offer
	// arrives on the live subscription, not in the first read.
	live := b.countMessages("1 relay(s) live")
	done := make(chan *seat.Woke, 1)
	go func() {
		res, err := b.try("wait_turn", map[string]any{"match": ch.Match, "timeout_seconds": 60}, "b-offer-wait")
		if err != nil || res.IsError {
			t.Errorf("wait_turn: %v %v", err, res)
			done <- nil
			return
		}
		w := decodeAny[seat.Woke](res)
		done <- &w
	}()
	waitFor(t, "b's wait to go live", func() bool { return b.countMessages("1 relay(s) live") > live })
	offer := ok[seat.Reply](a, "offer_result", map[string]any{"match": ch.Match, "result": "draw"})
	if offer.Result == nil || offer.Result.Result != "draw" || offer.Status.Final {
		t.Fatalf("offer answered %+v", offer)
	}
	w := <-done
	if w == nil || w.Reason != seat.WakeOffer || w.Status.Offer == nil || w.Status.Offer.Result.Result != "draw" || w.Status.Offer.Pubkey != a.pk {
		t.Fatalf("b's wait after the offer: %+v", w)
	}
	acc := ok[seat.Reply](b, "offer_result", map[string]any{"match": ch.Match, "result": "draw"})
	st := acc.Status
	if !st.Final || st.Result == nil || *st.Result != "draw" || st.Reason == nil || *st.Reason != "agreement" || st.FinalBy == nil || *st.FinalBy != "signatures" {
		t.Errorf("after accepting the offer: %+v", st.Summary)
	}
}

// TestMCPCommandErrors: `vesper mcp` refuses to start without a usable key
// or with stray arguments, says why on stderr, prints nothing on stdout (the
// protocol's channel), and never echoes a key.
func TestMCPCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.key")
	secret := testkit.Key("mcp-errors").Nsec()
	// A key file with the key mangled: the error must not quote it.
	if err := os.WriteFile(bad, []byte(secret+"x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no key", []string{"mcp", "--relays", "ws://127.0.0.1:1"}, 5, "no key"},
		{"missing key file", []string{"mcp", "--key", filepath.Join(dir, "none.key")}, 5, "does not exist"},
		{"bad key file", []string{"mcp", "--key", bad}, 5, "does not hold a secret key"},
		{"stray argument", []string{"mcp", "--key", bad, "extra"}, 2, "takes no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(binPath, tc.args...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(errb.String(), tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, errb.String(), tc.code, tc.msg)
			}
			if out.Len() != 0 {
				t.Errorf("stdout holds %q; it is the protocol's channel", out.String())
			}
			if strings.Contains(errb.String(), secret) {
				t.Errorf("the key appeared on stderr")
			}
		})
	}
}
