package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vesper/analysis"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/play"
	"vesper/relayd"
)

// runnerProc is a `vesper play --json` process whose lines go to a file.
type runnerProc struct {
	cmd  *exec.Cmd
	out  string
	done chan error
}

func startRunner(t *testing.T, dir, relays, key string, extra ...string) *runnerProc {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Each relay read ends on the relay's answer: a long timeout costs
	// nothing and holds on a busy machine.
	args := append([]string{"play", "--json", "--relays", relays, "--key", key, "--dir", dir, "--timeout", testkit.ScaleFlag(30 * time.Second)}, extra...)
	cmd := exec.Command(binPath, args...)
	p := &runnerProc{cmd: cmd, out: filepath.Join(dir, "out.jsonl"), done: make(chan error, 1)}
	f, err := os.OpenFile(p.out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	errf, err := os.OpenFile(filepath.Join(dir, "err.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = f, errf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait(); f.Close(); errf.Close() }()
	t.Cleanup(p.kill)
	return p
}

func (p *runnerProc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	p.done <- nil
}

// wait waits for the runner to leave by itself (a series over).
func (p *runnerProc) wait(t *testing.T, d time.Duration) {
	t.Helper()
	d = testkit.Scale(d)
	select {
	case err := <-p.done:
		p.done <- nil
		if err != nil {
			b, _ := os.ReadFile(filepath.Join(filepath.Dir(p.out), "err.log"))
			t.Fatalf("runner exit: %v; stderr: %s", err, b)
		}
	case <-time.After(d):
		t.Fatalf("the runner did not finish within %v; its lines:\n%s", d, tailFile(p.out, 30))
	}
}

func (p *runnerProc) lines(t *testing.T) []play.Line {
	t.Helper()
	f, err := os.Open(p.out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []play.Line
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l play.Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("runner line %q is not JSON: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

func tailFile(path string, n int) string {
	b, _ := os.ReadFile(path)
	ls := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// seriesMatches reads the runner's series file: slot -> match.
func seriesMatches(t *testing.T, dir string) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "series-*.jsonl"))
	if len(paths) != 1 {
		t.Fatalf("%d series files in %s, want 1", len(paths), dir)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	bySlot := map[int]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct {
			Type  string
			Index int
			Match string
		}
		if json.Unmarshal([]byte(l), &e) == nil && e.Type == "slot" {
			bySlot[e.Index] = e.Match
		}
	}
	out := make([]string, len(bySlot))
	for i, m := range bySlot {
		out[i] = m
	}
	return out
}

// decisions reads a game's decision records.
func decisions(t *testing.T, dir, id string) []play.Entry {
	t.Helper()
	j, _ := play.OpenJournal(filepath.Join(dir, "games"), id)
	es, err := j.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var out []play.Entry
	for _, e := range es {
		if e.Type == play.EntryDecision && e.Move != "" {
			out = append(out, e)
		}
	}
	return out
}

func lastSeries(t *testing.T, ls []play.Line) *play.Line {
	t.Helper()
	for i := len(ls) - 1; i >= 0; i-- {
		if ls[i].Type == "series_over" {
			return &ls[i]
		}
	}
	t.Fatal("no series_over line")
	return nil
}

// noDoubleMove checks, on the relay, that author signed at most one move
// event per ply of the match: a restart that decided again would sign a
// second one.
func noDoubleMove(t *testing.T, url, id, author string) {
	t.Helper()
	seen := map[string]string{}
	for _, ev := range forMatch(authored(t, url, nostr.KindMove, author), id) {
		ply := ev.Tags.Find("ply")
		if len(ply) < 2 {
			continue
		}
		if prev, ok := seen[ply[1]]; ok && prev != ev.ID {
			t.Errorf("match %s ply %s: two move events by the runner (%s, %s)", id, ply[1], prev, ev.ID)
		}
		seen[ply[1]] = ev.ID
	}
}

func stockfishOrSkip(t *testing.T) string {
	path, err := analysis.FindStockfish("")
	if err != nil {
		if os.Getenv("VESPER_REQUIRE_STOCKFISH") != "" {
			t.Fatalf("VESPER_REQUIRE_STOCKFISH is set: %v", err)
		}
		t.Skip(err)
	}
	return path
}

// TestPlaySeriesStockfishAgainstTheHouse is issue 25's series: `vesper play`
// with Stockfish at a low node limit plays 6 games, sides swapped, against
// the house's engine (the built-in one, run by a second `vesper play`: the
// daemon's house never challenges, so it cannot take White), unattended;
// every result is final, the sides alternate, both runners print the same
// score mirrored, and the games ran at once (at least 5 in progress
// together).
func TestPlaySeriesStockfishAgainstTheHouse(t *testing.T) {
	testkit.QuickLoopSkips(t)
	sf := stockfishOrSkip(t)
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	sfKey, house := testkit.Key("stockfish runner"), testkit.Key("house runner")
	base := t.TempDir()
	a := startRunner(t, filepath.Join(base, "sf"), url, writeKey(t, sfKey), "--uci", sf, "--nodes", "5000",
		"--series-opponent", house.PublicKey(), "--series-games", "6", "--series-first", "white", "--max-games", "6")
	b := startRunner(t, filepath.Join(base, "house"), url, writeKey(t, house), "--engine", "builtin", "--nodes", "2000",
		"--series-opponent", sfKey.PublicKey(), "--series-games", "6", "--series-first", "black", "--max-games", "6")
	a.wait(t, 15*time.Minute)
	b.wait(t, 5*time.Minute)
	ids := seriesMatches(t, filepath.Join(base, "sf"))
	if len(ids) != 6 {
		t.Fatalf("series of %d games, want 6", len(ids))
	}
	var spans [][2]int64
	for i, id := range ids {
		st := fetchFold(t, url, id)
		if !st.Final {
			t.Errorf("game %d (%s) is not final: %+v", i, id, st.Summary(time.Now().Unix()))
		}
		wantFirst := sfKey.PublicKey()
		if i%2 == 1 {
			wantFirst = house.PublicKey()
		}
		if st.First != wantFirst {
			t.Errorf("game %d: first player %s, want %s (sides swapped each game)", i, st.First, wantFirst)
		}
		noDoubleMove(t, url, id, sfKey.PublicKey())
		spans = append(spans, [2]int64{st.AcceptAt, st.EndedAt})
	}
	if n := maxOverlap(spans); n < 5 {
		t.Errorf("at most %d games in progress at once, want at least 5", n)
	}
	sa, sb := lastSeries(t, a.lines(t)).Score, lastSeries(t, b.lines(t)).Score
	if sa.Games() != 6 || sa.Wins != sb.Losses || sa.Draws != sb.Draws || sa.Losses != sb.Wins {
		t.Fatalf("scores %+v and %+v do not mirror over 6 games", sa, sb)
	}
	// Every decision of the Stockfish runner is recorded, with its PGN.
	for _, id := range ids {
		if len(decisions(t, filepath.Join(base, "sf"), id)) == 0 {
			t.Errorf("no decision recorded for %s", id)
		}
		if _, err := os.Stat(filepath.Join(base, "sf", "games", id+".pgn")); err != nil {
			t.Errorf("no PGN: %v", err)
		}
	}
}

// maxOverlap is the most spans [start, end] sharing one second.
func maxOverlap(spans [][2]int64) int {
	best := 0
	for _, s := range spans {
		n := 0
		for _, o := range spans {
			if o[0] <= s[0] && s[0] <= o[1] {
				n++
			}
		}
		best = max(best, n)
	}
	return best
}

// agentGame plays one gomoku game: the agent runner invites a house runner
// (the built-in engine, accepting invitations), and returns the match and
// the agent runner's directory once the game is final.
func agentGame(t *testing.T, agent string, extra ...string) (url, id, dir string) {
	t.Helper()
	url = startRelays(t, 1, relayd.Options{})[0].URL()
	me, house := testkit.Key("agent runner"), testkit.Key("house runner")
	base := t.TempDir()
	// The house runner takes its engine from a --config file.
	conf := filepath.Join(base, "house.conf")
	if err := os.WriteFile(conf, []byte("# the house\nengine: builtin\nnodes: 2000\ngame: gomoku\ngame: chess\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	startRunner(t, filepath.Join(base, "house"), url, writeKey(t, house), "--config", conf)
	dir = filepath.Join(base, "agent")
	abs, err := filepath.Abs(filepath.Join("testdata", "agents", agent))
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--agent", abs, "--series-opponent", house.PublicKey(), "--series-games", "1", "--series-game", "gomoku"}, extra...)
	a := startRunner(t, dir, url, writeKey(t, me), args...)
	a.wait(t, 5*time.Minute)
	ids := seriesMatches(t, dir)
	if len(ids) != 1 {
		t.Fatalf("%d games, want 1", len(ids))
	}
	if st := fetchFold(t, url, ids[0]); !st.Final {
		t.Fatalf("not final: %+v", st.Summary(time.Now().Unix()))
	}
	return url, ids[0], dir
}

// TestPlayAgentIllegalThenLegal: an agent whose first answer is illegal is
// told the fold's rule and reason and asked again; its legal retry is
// played, and the record shows both attempts.
func TestPlayAgentIllegalThenLegal(t *testing.T) {
	testkit.QuickLoopSkips(t)
	log := filepath.Join(t.TempDir(), "requests.jsonl")
	t.Setenv("AGENT_LOG", log)
	_, id, dir := agentGame(t, "illegal_first.sh")
	ds := decisions(t, dir, id)
	if len(ds) == 0 {
		t.Fatal("no decisions recorded")
	}
	for _, d := range ds {
		if len(d.Attempts) != 2 || d.Attempts[0].Kind != play.KindIllegal || d.Attempts[0].Rule != string(match.IgnIllegal) ||
			d.Attempts[1].Kind != "" || d.Fallback != "" || d.Reasoning != "first legal move" {
			t.Fatalf("ply %d: record %+v, want an illegal attempt (rule %s) then the played one", d.Ply, d, match.IgnIllegal)
		}
	}
	// The retry's request carried the refusal.
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	retried := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var req play.Request
		if err := json.Unmarshal([]byte(l), &req); err != nil {
			t.Fatalf("request %q: %v", l, err)
		}
		if req.Attempt == 2 {
			retried++
			if req.Refusal == nil || req.Refusal.Rule != string(match.IgnIllegal) || req.Refusal.Answer != "z99" || req.Refusal.Reason == "" {
				t.Fatalf("retry request without the refusal: %s", l)
			}
		}
		if req.Attempt == 2 && req.PreviousReasoning == "" && req.Ply > 2 {
			t.Fatalf("ply %d: the agent's previous reasoning is missing", req.Ply)
		}
	}
	if retried != len(ds) {
		t.Fatalf("%d retries for %d decisions", retried, len(ds))
	}
}

// TestPlayAgentHangs: an agent that hangs is killed at --agent-timeout
// (long enough that the answers after the hang, a shell script with grep
// and sed, come in time on a loaded host: the hang itself never ends),
// asked again, killed again, and the random fallback is played and flagged;
// the game goes on to a final result.
func TestPlayAgentHangs(t *testing.T) {
	testkit.QuickLoopSkips(t)
	pids := filepath.Join(t.TempDir(), "pids")
	t.Setenv("AGENT_PIDS", pids)
	_, id, dir := agentGame(t, "hangs_first.sh", "--agent-timeout", testkit.ScaleFlag(5*time.Second), "--retries", "1", "--fallback", "random")
	ds := decisions(t, dir, id)
	if len(ds) < 2 {
		t.Fatalf("%d decisions", len(ds))
	}
	first := ds[0]
	if first.Fallback != play.FallbackRandom || len(first.Attempts) != 2 ||
		first.Attempts[0].Kind != play.KindTimeout || first.Attempts[1].Kind != play.KindTimeout {
		t.Fatalf("first decision %+v, want two time-outs and the random fallback", first)
	}
	for _, d := range ds[1:] {
		if d.Fallback != "" {
			t.Fatalf("ply %d took a fallback: %+v", d.Ply, d)
		}
	}
	b, _ := os.ReadFile(pids)
	for _, p := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(p)
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("hung agent %d still runs: %v", pid, err)
		}
	}
}

// TestPlayKill9MidSeries: the runner is SIGKILLed in the middle of a series
// and started again; it resumes its games from the journals and the relays,
// never signs two moves for one ply, and the series completes.
func TestPlayKill9MidSeries(t *testing.T) {
	testkit.QuickLoopSkips(t)
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	me, house := testkit.Key("killed runner"), testkit.Key("house runner")
	base := t.TempDir()
	dir := filepath.Join(base, "me")
	key := writeKey(t, me)
	args := []string{"--engine", "builtin", "--nodes", "1500", "--series-opponent", house.PublicKey(),
		"--series-games", "4", "--series-game", "gomoku", "--max-games", "4"}
	b := startRunner(t, filepath.Join(base, "house"), url, writeKey(t, house), "--engine", "builtin", "--nodes", "1500",
		"--series-opponent", me.PublicKey(), "--series-games", "4", "--series-game", "gomoku", "--series-first", "black", "--max-games", "4")
	a := startRunner(t, dir, url, key, args...)
	waitFor(t, "the runner's fourth move", 3*time.Minute, func() bool {
		n := 0
		for _, l := range a.lines(t) {
			if l.Type == "move" {
				n++
			}
		}
		return n >= 4
	})
	a.kill()
	a2 := startRunner(t, dir, url, key, args...)
	a2.wait(t, 10*time.Minute)
	b.wait(t, 5*time.Minute)
	ids := seriesMatches(t, dir)
	if len(ids) != 4 {
		t.Fatalf("series of %d games, want 4", len(ids))
	}
	for _, id := range ids {
		if st := fetchFold(t, url, id); !st.Final {
			t.Errorf("%s not final", id)
		}
		noDoubleMove(t, url, id, me.PublicKey())
	}
	if sc := lastSeries(t, a2.lines(t)).Score; sc.Games() != 4 {
		t.Fatalf("score over %d games, want 4", sc.Games())
	}
	// The challenges were not posted twice: the house played 4 games.
	if n := len(authored(t, url, nostr.KindChallenge, me.PublicKey())); n != 2 {
		t.Fatalf("the runner posted %d challenges, want 2 (its White games)", n)
	}
}

// jsonLines runs vesper with args until the test ends and returns the
// JSON objects it prints, one a line, in order; the channel closes when
// its output does.
func jsonLines(t *testing.T, args ...string) <-chan map[string]any {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan map[string]any, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	return lines
}

// TestEventsStream: `vesper events --json` prints, on one stream, an
// invitation to the key, the game once accepted (their turn), and the
// key's turn once the challenger moves: one JSON object per line.
func TestEventsStream(t *testing.T) {
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	me, other := testkit.Key("events key"), testkit.Key("challenger")
	lines := jsonLines(t, "events", "--json", "--relays", url, "--key", writeKey(t, me))
	next := func(want string) map[string]any {
		t.Helper()
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("the stream ended before %s", want)
				}
				if m["type"] == want {
					return m
				}
			case <-time.After(testkit.Scale(2 * time.Minute)):
				t.Fatalf("no %s line", want)
			}
		}
	}
	ch := testkit.Sign(other, nostr.NewChallenge("chess", me.PublicKey(), time.Now().Unix()))
	post(t, url, other, ch)
	if m := next("challenge"); m["match"] != ch.ID || m["from"] != other.PublicKey() {
		t.Fatalf("challenge line %v", m)
	}
	seatRun(t, url, "accept", "--key", writeKey(t, me), ch.ID)
	next("their_turn")
	st := fetchFold(t, url, ch.ID)
	post(t, url, other, nostr.NewMove(ch.ID, 1, "e2e4", st.Stamp(time.Now().Unix())))
	m := next("my_turn")
	if s := m["status"].(map[string]any); s["ply"] != float64(2) || s["my_turn"] != true {
		t.Fatalf("my_turn status %v", s)
	}
}

// TestPlayReadmeAgentAgainstTheDaemonHouse is the README's agent example as
// written: examples/agent.py plays a series against the daemon's house
// (which accepts invitations at once and never challenges, hence
// --series-no-swap); every game ends final.
func TestPlayReadmeAgentAgainstTheDaemonHouse(t *testing.T) {
	testkit.QuickLoopSkips(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed by examples/agent.py")
	}
	url := startRelays(t, 1, relayd.Options{})[0].URL()
	house, me := testkit.Key("house"), testkit.Key("newcomer")
	startDaemon(t, t.TempDir(), url, "--key", writeKey(t, house), "--think", "50ms", "--analyse", "off")
	agent, err := filepath.Abs(filepath.Join("..", "..", "examples", "agent.py"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "me")
	a := startRunner(t, dir, url, writeKey(t, me), "--agent", agent, "--agent-timeout", testkit.ScaleFlag(time.Minute),
		"--series-opponent", nostr.Npub(house.PublicKey()), "--series-games", "2", "--series-game", "gomoku", "--series-no-swap")
	a.wait(t, 10*time.Minute)
	ids := seriesMatches(t, dir)
	if len(ids) != 2 {
		t.Fatalf("%d games, want 2", len(ids))
	}
	for _, id := range ids {
		st := fetchFold(t, url, id)
		if !st.Final || st.First != me.PublicKey() || st.Second != house.PublicKey() {
			t.Fatalf("%s: final %v, first %s, second %s", id, st.Final, st.First, st.Second)
		}
	}
	if sc := lastSeries(t, a.lines(t)).Score; sc.Games() != 2 {
		t.Fatalf("score over %d games", sc.Games())
	}
}
