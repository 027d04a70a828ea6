package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/relayd"
	"vesper/store"
)

func startRelays(t *testing.T, n int, opts relayd.Options) []*relayd.Relay {
	t.Helper()
	var out []*relayd.Relay
	for i := 0; i < n; i++ {
		r, err := relayd.Start(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		out = append(out, r)
	}
	return out
}

func urls(rs []*relayd.Relay) string {
	var u []string
	for _, r := range rs {
		u = append(u, r.URL())
	}
	return strings.Join(u, ",")
}

// publishIndependent posts with go-nostr's own websocket connection and
// envelopes: a Nostr client that is not this project's code. (Not go-nostr's
// Relay, whose Close races with its own writer goroutine under -race.)
func publishIndependent(t testing.TB, url string, evs ...*nostr.Event) {
	t.Helper()
	publishWithin(t, url, 10*time.Second, evs...)
}

// publishWithin is publishIndependent with a deadline of its own (scaled).
// It uses go-nostr's bare Connection, not its Relay, whose Close races with
// its own writer goroutine under -race (see internal/sim's fetchRelay).
func publishWithin(t testing.TB, url string, d time.Duration, evs ...*nostr.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(d))
	defer cancel()
	conn, err := gn.NewConnection(ctx, url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, ev := range evs {
		msg, err := (&gn.EventEnvelope{Event: *ev}).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.WriteMessage(ctx, msg); err != nil {
			t.Fatalf("publish %s to %s: %v", ev.ID, url, err)
		}
		for {
			var buf bytes.Buffer
			if err := conn.ReadMessage(ctx, &buf); err != nil {
				t.Fatalf("publish %s to %s: no OK: %v", ev.ID, url, err)
			}
			var env gn.OKEnvelope
			if !bytes.HasPrefix(buf.Bytes(), []byte(`["OK"`)) || env.FromJSON(buf.String()) != nil || env.EventID != ev.ID {
				continue
			}
			if !env.OK {
				t.Fatalf("publish %s to %s: %s", ev.ID, url, env.Reason)
			}
			break
		}
	}
}

type daemonProc struct {
	cmd  *exec.Cmd
	done chan error
}

func startDaemon(t *testing.T, data, relays string, extra ...string) *daemonProc {
	t.Helper()
	args := append([]string{"daemon", "--data", data, "--relays", relays, "--tick", "1s"}, extra...)
	cmd := exec.Command(binPath, args...)
	logf, err := os.OpenFile(filepath.Join(data, "daemon.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr, cmd.Stdout = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &daemonProc{cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); logf.Close() }()
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *daemonProc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	p.done <- nil // later calls return at once
}

func (p *daemonProc) stop(t *testing.T) {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- nil
		if err != nil {
			t.Fatalf("daemon exit after SIGTERM: %v", err)
		}
	case <-time.After(testkit.Scale(time.Minute)):
		t.Fatal("daemon did not stop on SIGTERM")
	}
}

// summaries reads the store through `vesper matches --json`, which works
// while the daemon writes.
func summaries(t *testing.T, data string) map[string]string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(data, "vesper.db")); err != nil {
		return nil
	}
	r := vesper(t, nil, nil, "matches", "--json", "--data", data)
	if r.code != 0 {
		return nil
	}
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var s struct{ Match string }
		if json.Unmarshal(sc.Bytes(), &s) == nil {
			out[s.Match] = sc.Text()
		}
	}
	return out
}

// expected is what `vesper verify` computes from the same events.
func expected(t *testing.T, m *testkit.Match, now int64) string {
	t.Helper()
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(match.MarshalLine(st.Summary(now))))
}

// waitFor polls cond until it holds, failing the test after d, scaled.
var waitFor = testkit.WaitFor

// scholarsMate builds a finished, final chess match stamped around now.
func scholarsMate(t *testing.T, a, b nostr.SecretKey) *testkit.Match {
	t.Helper()
	return scholarsMateAt(t, a, b, time.Now().Unix()-100)
}

// scholarsMateAt is scholarsMate challenged at a chosen time.
func scholarsMateAt(t *testing.T, a, b nostr.SecretKey, at int64) *testkit.Match {
	t.Helper()
	m := testkit.NewMatch(a, b, "chess", "", at)
	m.Accept(at + 1)
	last := m.Play(demoGame, at+2, 1)
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil || !st.Over {
		t.Fatalf("scholar's mate did not end: %v", err)
	}
	m.Result(a, st.Computed(), last+1)
	m.Result(b, st.Computed(), last+2)
	return m
}

// TestDaemonIngestAcrossRelays: a match's events split and duplicated over
// three relays, some published before the daemon starts and some while it
// runs, by an independent client: stored once, summary equal to verify's.
func TestDaemonIngestAcrossRelays(t *testing.T) {
	rs := startRelays(t, 3, relayd.Options{})
	m := scholarsMate(t, testkit.Key("alice"), testkit.Key("bob"))
	half := len(m.Events) / 2
	for i, ev := range m.Events[:half] {
		publishIndependent(t, rs[i%3].URL(), ev)
		publishIndependent(t, rs[(i+1)%3].URL(), ev) // duplicated on another relay
	}
	data := t.TempDir()
	started := time.Now().Unix()
	d := startDaemon(t, data, urls(rs))
	for i, ev := range m.Events[half:] {
		publishIndependent(t, rs[(i+2)%3].URL(), ev)
	}
	want := expected(t, m, time.Now().Unix())
	waitFor(t, "the final summary", 30*time.Second, func() bool { return summaries(t, data)[m.ID] == want })
	d.stop(t)

	// Every relay's cursor was saved (by the daemon, behind the events it
	// covers) at or after the daemon's start.
	st, err := store.OpenReadOnly(filepath.Join(data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	cursors, err := st.Cursors(t.Context())
	st.Close()
	if err != nil || len(cursors) != len(rs) {
		t.Fatalf("cursors %v (%v), want one per relay", cursors, err)
	}
	for u, c := range cursors {
		if c < started {
			t.Errorf("cursor of %s is %d, before the daemon started (%d)", u, c, started)
		}
	}

	// Stored once each, with every relay that had it.
	r := vesper(t, nil, nil, "export", "--data", data, "--match", m.ID)
	var doc struct {
		Events []json.RawMessage `json:"events"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Events) != len(m.Events) {
		t.Fatalf("export: %d events (want %d): %v %s", len(doc.Events), len(m.Events), err, r.stderr)
	}
	// The exported match.json verifies to the same summary.
	path := filepath.Join(data, "m.json")
	os.WriteFile(path, []byte(r.stdout), 0o644)
	v := vesper(t, nil, nil, "verify", "--json", path)
	if strings.TrimSpace(v.stdout) != want {
		t.Fatalf("verify of the export:\n%s\nwant\n%s", v.stdout, want)
	}
}

// TestDaemonRelayDropsAndReturns: a relay that drops every connection
// mid-stream and comes back: nothing published meanwhile is missed.
func TestDaemonRelayDropsAndReturns(t *testing.T) {
	rs := startRelays(t, 1, relayd.Options{})
	m := scholarsMate(t, testkit.Key("carol"), testkit.Key("dave"))
	data := t.TempDir()
	startDaemon(t, data, urls(rs))
	publishIndependent(t, rs[0].URL(), m.Events[:3]...)
	waitFor(t, "the accept", 30*time.Second, func() bool { return strings.Contains(summaries(t, data)[m.ID], `"status":"active"`) })
	rs[0].Stop()
	if err := rs[0].Restart(); err != nil {
		t.Fatal(err)
	}
	publishIndependent(t, rs[0].URL(), m.Events[3:]...)
	rs[0].DropConnections()
	want := expected(t, m, time.Now().Unix())
	waitFor(t, "the summary after reconnecting", 60*time.Second, func() bool { return summaries(t, data)[m.ID] == want })
}

// TestDaemonKill9DuringIngest: SIGKILL while ingesting, then a restart:
// the summaries equal a clean run's.
func TestDaemonKill9DuringIngest(t *testing.T) {
	rs := startRelays(t, 2, relayd.Options{})
	var ms []*testkit.Match
	for i := 0; i < 12; i++ {
		m := scholarsMate(t, testkit.Key(fmt.Sprintf("k%d", i)), testkit.Key(fmt.Sprintf("l%d", i)))
		ms = append(ms, m)
		publishIndependent(t, rs[i%2].URL(), m.Events...)
	}
	data := t.TempDir()
	d := startDaemon(t, data, urls(rs))
	waitFor(t, "some ingest", 30*time.Second, func() bool { return len(summaries(t, data)) > 0 })
	d.kill()
	startDaemon(t, data, urls(rs))
	now := time.Now().Unix()
	waitFor(t, "every summary after the restart", 60*time.Second, func() bool {
		got := summaries(t, data)
		for _, m := range ms {
			if got[m.ID] != expected(t, m, now) {
				return false
			}
		}
		return true
	})
}

// TestDaemonBadInput: forged ids, bad signatures, oversized and junk events
// served by a relay are refused, and the daemon goes on.
func TestDaemonBadInput(t *testing.T) {
	rs := startRelays(t, 1, relayd.Options{})
	k := testkit.Key("eve")
	good := scholarsMate(t, testkit.Key("frank"), testkit.Key("grace"))
	ctx := context.Background()

	forged := *testkit.Sign(k, nostr.NewChallenge("chess", "", time.Now().Unix()))
	forged.Content = `{"game":"gomoku"}` // id no longer matches
	badSig := *testkit.Sign(k, nostr.NewChallenge("chess", "", time.Now().Unix()-1))
	badSig.Sig = strings.Repeat("ab", 64)
	unknown := testkit.Sign(k, &nostr.Event{Kind: 4423, CreatedAt: nostr.Timestamp(time.Now().Unix()), Tags: nostr.Tags{{"g", good.ID}}, Content: "old referee"})
	// An oversized move and a challenge whose content is not JSON are real,
	// signed events: stored, and judged by the fold (too_large, no match).
	big := testkit.Sign(good.B, nostr.NewMove(good.ID, 9, strings.Repeat("x", 70000), int64(good.Events[len(good.Events)-1].CreatedAt)))
	good.Events = append(good.Events, big)
	notJSON := testkit.Sign(k, &nostr.Event{Kind: nostr.KindChallenge, CreatedAt: nostr.Timestamp(time.Now().Unix()), Tags: nostr.Tags{{"t", nostr.GamesTopic}}, Content: "let's play"})
	for _, ev := range []*nostr.Event{&forged, &badSig, unknown, big, notJSON} {
		if err := rs[0].Inject(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, urls(rs), "--metrics", addr)
	publishIndependent(t, rs[0].URL(), good.Events[:len(good.Events)-1]...)
	want := expected(t, good, time.Now().Unix())
	waitFor(t, "the good match", 30*time.Second, func() bool { return summaries(t, data)[good.ID] == want })
	got := summaries(t, data)
	if _, ok := got[forged.ID]; ok {
		t.Fatal("a forged challenge was stored")
	}
	if _, ok := got[badSig.ID]; ok {
		t.Fatal("a challenge with a bad signature was stored")
	}
	if len(got) != 1 {
		t.Fatalf("stored %d matches, want 1", len(got))
	}
	if !strings.Contains(got[good.ID], "too_large") {
		t.Fatalf("the oversized move is not listed as ignored: %s", got[good.ID])
	}
	// Refusals are counted by reason.
	waitFor(t, "the rejection counters", time.Minute, func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return strings.Contains(string(body), `vesper_events_rejected_total{reason="bad_id"} 1`) &&
			strings.Contains(string(body), `vesper_events_rejected_total{reason="bad_signature"} 1`)
	})
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
