package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/seat"
)

// playingDoc is where the README sends agents: docs/PLAYING.md, which
// holds the jq loop and explains every wait reason.
var playingDoc = filepath.Join("..", "..", "docs", "PLAYING.md")

// readmeLoop is the jq loop of docs/PLAYING.md, exactly as written there:
// the shell block of "Play a game" that holds `while :; do`.
func readmeLoop(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(playingDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(b), "```sh\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if strings.Contains(block, "while :; do") {
			return block
		}
	}
	t.Fatal("docs/PLAYING.md has no shell block with the wait loop")
	return ""
}

// TestReadmeLoopNeverGivesAGameAway is trap 1 of issue 25: docs/PLAYING.md's
// loop, run as written (bash and jq) for alice, against an opponent that on
// its own turn offers itself the win. The loop must not accept it: the
// opponent then resigns, and the game is final as alice's win.
func TestReadmeLoopNeverGivesAGameAway(t *testing.T) {
	for _, tool := range []string{"bash", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("VESPER_REQUIRE_INTEROP") != "" {
				t.Fatalf("%s is needed to run the documented loop: %v", tool, err)
			}
			t.Skipf("%s is needed to run the documented loop: %v", tool, err)
		}
	}
	t.Parallel()
	e := newAgentEnv(t)
	ctx := context.Background()
	relays := []string{e.relay.URL()}
	alice := &seat.Seat{Relays: relays, Key: e.a, Timeout: testkit.Scale(5 * time.Second), LockDir: t.TempDir()}
	bob := &seat.Seat{Relays: relays, Key: e.b, Timeout: testkit.Scale(5 * time.Second), LockDir: t.TempDir()}
	ch, err := alice.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Accept(ctx, ch.Match); err != nil {
		t.Fatal(err)
	}

	// ./vesper is a shim that logs each call and what it printed, so the
	// test can tell when the loop has answered the offer.
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	shim := filepath.Join(dir, "vesper")
	script := "#!/bin/sh\necho \"start $1\" >> " + log + "\nout=$(" + binPath + " \"$@\")\ncode=$?\nprintf 'end %s %s\\n' \"$1\" \"$out\" | tr -d '\\n' >> " + log +
		"\necho >> " + log + "\nprintf '%s\\n' \"$out\"\nexit $code\n"
	if err := os.WriteFile(shim, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	loop := readmeLoop(t)
	loop = strings.ReplaceAll(loop, "./vesper", shim)
	loop = strings.ReplaceAll(loop, "alice.key", e.aKey)
	loop = strings.ReplaceAll(loop, "MATCH", ch.Match)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(lctx, "bash", "-c", loop)
	cmd.Env = append(os.Environ(), "VESPER_RELAYS="+e.relay.URL())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// Alice's loop moves; on his turn bob offers himself the win.
	if w, err := bob.Wait(ctx, ch.Match, seat.WaitOptions{Timeout: testkit.Scale(time.Minute)}); err != nil || w.Reason != seat.WakeMyTurn {
		t.Fatalf("bob's wait: %v %+v (loop output %s)", err, w, out.String())
	}
	if _, err := bob.Agree(ctx, ch.Match, match.Second); err != nil {
		t.Fatal(err)
	}
	// Once the loop's wait has returned the offer and the loop has started
	// its next wait, whatever it did about the offer is done.
	answered := func() bool {
		b, _ := os.ReadFile(log)
		_, after, found := strings.Cut(string(b), `"reason":"offer"`)
		return found && strings.Contains(after, "start wait")
	}
	for !answered() {
		select {
		case err := <-exited:
			t.Fatalf("the loop ended before answering the offer: %v\n%s", err, out.String())
		case <-time.After(50 * time.Millisecond): // the polling cadence
		}
	}
	// Bob resigns (refused if the loop gave him the game) and signs.
	_, _ = bob.Resign(ctx, ch.Match)
	_, _ = bob.SignResult(ctx, ch.Match)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the loop: %v\n%s", err, out.String())
		}
	case <-time.After(testkit.Scale(2 * time.Minute)):
		t.Fatalf("the loop did not stop at the final result\n%s", out.String())
	}
	snap, err := alice.Read(ctx, ch.Match)
	if err != nil {
		t.Fatal(err)
	}
	st := snap.State
	if !st.Final || st.Result != match.First || st.Reason != match.ReasonResignation {
		t.Fatalf("the documented loop gave the game away: final %v, result %s by %s", st.Final, st.Result, st.Reason)
	}
}

// wakeReasons are every reason seat.Wait gives.
var wakeReasons = []string{seat.WakeMyTurn, seat.WakeGameOver, seat.WakeFinal, seat.WakeOffer, seat.WakeRequest,
	seat.WakeExpired, seat.WakeTimeout, seat.WakeClaimTimeout, seat.WakeArbitrate, seat.WakeLostOnTime}

// TestWaitReasonsDocumented is trap 5: every reason wait can give is
// explained by `vesper wait --help` and docs/PLAYING.md, and its loop
// stops on each one that leaves nothing to do.
func TestWaitReasonsDocumented(t *testing.T) {
	help := vesper(t, nil, nil, "wait", "--help")
	readme, err := os.ReadFile(playingDoc)
	if err != nil {
		t.Fatal(err)
	}
	loop := readmeLoop(t)
	for _, r := range wakeReasons {
		if !strings.Contains(help.stdout, "  "+r+" ") {
			t.Errorf("vesper wait --help does not explain %s", r)
		}
		if !strings.Contains(string(readme), "`"+r+"`") {
			t.Errorf("docs/PLAYING.md does not explain %s", r)
		}
		if !strings.Contains(loop, r) && r != seat.WakeRequest {
			t.Errorf("the documented loop does not handle %s", r)
		}
		if seat.Terminal(r) && !strings.Contains(loop, r+")") && !strings.Contains(loop, r+"|") {
			t.Errorf("the documented loop does not stop on %s", r)
		}
	}
}

// TestTimeoutZero is trap 6: `wait --timeout 0` looks once and answers (a
// zero timeout used to mean the 5-minute default), and a zero relay
// timeout is a usage error rather than the 10-second default.
func TestTimeoutZero(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t)
	id := seatRun(t, e.relay.URL(), "challenge", "--key", e.aKey)["match"].(string)
	seatRun(t, e.relay.URL(), "accept", "--key", e.bKey, id)
	// It is alice's move: bob has nothing to do yet, and says so at once.
	// The default wait is five minutes; the deadline only stops a broken
	// build from hanging the suite.
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(2*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, "wait", "--json", "--relays", e.relay.URL(), "--key", e.bKey, "--timeout", "0", id)
	got, err := cmd.Output()
	if err != nil || !strings.Contains(string(got), `"reason":"timeout"`) {
		t.Fatalf("wait --timeout 0 for the waiting side: %v %s", err, got)
	}
	if w := seatRun(t, e.relay.URL(), "wait", "--key", e.aKey, "--timeout", "0", id); w == nil || w["reason"] != seat.WakeMyTurn {
		t.Fatalf("wait --timeout 0 for the side to move: %v", w)
	}
	for _, args := range [][]string{
		{"move", "--json", "--relays", e.relay.URL(), "--key", e.aKey, "--timeout", "0", id, "e4"},
		{"wait", "--json", "--relays", e.relay.URL(), "--key", e.aKey, "--relay-timeout", "0", id},
		{"wait", "--json", "--relays", e.relay.URL(), "--key", e.aKey, "--timeout", "-1s", id},
	} {
		if r := vesper(t, nil, nil, args...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, r.code, exitUsage, r.stdout)
		}
	}
}
