package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/match/chessjs"
	"vesper/relayd"
)

// TestWatchEnds is bug 7 of issue 14: watch returns when the game is over
// (signed or not) and when the challenge expired, and a relay going down
// for a while does not kill it.
func TestWatchEnds(t *testing.T) {
	e := newAgentEnv(t)
	old := time.Now().Unix() - match.ChallengeExpiry - 100
	expired := testkit.NewMatch(e.a, e.b, "chess", "", old)
	publishIndependent(t, e.relay.URL(), expired.Events...)
	if r := vesper(t, nil, nil, "watch", "--relays", e.relay.URL(), expired.ID); r.code != 0 || !strings.Contains(r.stdout, "expired") {
		t.Fatalf("watch of an expired challenge: %d %s %s", r.code, r.stdout, r.stderr)
	}

	id := e.ok(t, "challenge", "--key", e.aKey, "--game", "gomoku")["match"].(string)
	e.ok(t, "accept", "--key", e.bKey, id)
	cmd := exec.Command(binPath, "watch", "--json", "--every", "100ms", "--timeout", testkit.ScaleFlag(10*time.Second), "--relays", e.relay.URL(), id)
	var out, errb testkit.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	// The relay goes away for a moment, then comes back.
	e.relay.Stop()
	deadline := time.Now().Add(testkit.Scale(time.Minute))
	for !strings.Contains(errb.String(), "retrying") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // polling the process's output, with a deadline
	}
	if err := e.relay.Restart(); err != nil {
		t.Fatal(err)
	}
	e.ok(t, "move", "--key", e.aKey, id, "h8")
	e.ok(t, "resign", "--key", e.bKey, id)
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), `"reason":"resignation"`) {
			t.Fatalf("watch: %v %s %s", err, out.String(), errb.String())
		}
	case <-time.After(testkit.Scale(time.Minute)):
		t.Fatalf("watch did not end with the game: %s %s", out.String(), errb.String())
	}
}

// BenchmarkStatusJSON400 is `vesper status --json` as an agent runs it (a
// process start included) on a 400-event match on a local relay (issue 14:
// under 100 ms). The match is a seeded random chess game that avoids
// ending, padded with ignored moves by a third key if it runs out.
func BenchmarkStatusJSON400(b *testing.B) {
	r, err := relayd.Start(context.Background(), relayd.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ka, kb, kc := testkit.Key("long-a"), testkit.Key("long-b"), testkit.Key("long-c")
	t := time.Now().Unix() - 1000
	m := testkit.NewMatch(ka, kb, "chess", "", t)
	m.Accept(t + 1)
	g := chessjs.NewGame()
	rng := rand.New(rand.NewPCG(1, 2))
	for ply := 1; len(m.Events) < 400; ply++ {
		t++
		legal, played := g.LegalMoves(), false
		for _, j := range rng.Perm(len(legal)) {
			try := g.Clone()
			if _, err := try.Move(legal[j].UCI()); err != nil || try.Outcome().Over {
				continue
			}
			g, played = try, true
			k := ka
			if ply%2 == 0 {
				k = kb
			}
			m.Move(k, ply, legal[j].UCI(), t+1)
			break
		}
		if !played {
			break
		}
	}
	for len(m.Events) < 400 {
		t++
		m.Move(kc, 1, "e2e4", t+1)
	}
	for _, ev := range m.Events {
		if err := r.Publish(context.Background(), ev); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time of the process too: on a shared, loaded machine the wall
	// time mostly measures the wait for a core.
	var cpu time.Duration
	n := 0
	for b.Loop() {
		cmd := exec.Command(binPath, "status", "--json", "--relays", r.URL(), m.ID)
		out, err := cmd.Output()
		if err != nil || !bytes.Contains(out, []byte(`"fen"`)) {
			b.Fatalf("%v %s", err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		n++
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), "cpu-ms/op")
}
