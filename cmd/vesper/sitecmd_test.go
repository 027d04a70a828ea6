package main

import (
	"context"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/site/opening"
	"vesper/store"
)

// TestSiteBuildKnowsTheHouse is issue 17 items 3 and 5: the house's
// profile is only in the outbox (it is published, never ingested), and
// `vesper site build` runs without --daemon; the pages still name and mark
// the house. With an empty outbox the build says the key is missing.
func TestSiteBuildKnowsTheHouse(t *testing.T) {
	ctx := context.Background()
	house, alice := testkit.Key("house"), testkit.Key("alice")
	t0 := time.Now().Unix() - 3600
	build := func(t *testing.T, withProfile bool) (index, housePage string, r result) {
		data := t.TempDir()
		st, err := store.Open(filepath.Join(data, "vesper.db"))
		if err != nil {
			t.Fatal(err)
		}
		m := testkit.NewMatch(alice, house, "chess", "", t0)
		m.Accept(t0 + 1800)
		m.Play([]string{"e2e4", "e7e5"}, t0+1900, 60)
		for _, ev := range m.Events {
			if _, err := st.PutEvent(ctx, ev, nostr.MarshalEvent(ev), "", int64(ev.CreatedAt)+1); err != nil {
				t.Fatal(err)
			}
		}
		if withProfile {
			ev := testkit.Sign(house, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(t0),
				Content: `{"name":"vesper house","bot":true,"about":"verifier since 1858"}`})
			if _, _, err := st.OutboxAdd(ctx, "profile:"+house.PublicKey()+":v1", ev); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.PutProfile(ctx, testkit.Sign(alice, &nostr.Event{Kind: nostr.KindProfile,
			CreatedAt: nostr.Timestamp(t0), Content: `{"name":"Alice","bot":true}`})); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "site")
		r = vesper(t, nil, nil, "site", "build", "--data", data, "--out", out)
		if r.code != 0 {
			t.Fatalf("site build: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		page, err := os.ReadFile(filepath.Join(out, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		hp, err := os.ReadFile(filepath.Join(out, "p", house.PublicKey()+".html"))
		if err != nil {
			t.Fatal(err)
		}
		return string(page), string(hp), r
	}
	t.Run("profile in the outbox", func(t *testing.T) {
		index, hp, r := build(t, true)
		if !strings.Contains(index, "vesper house") || !strings.Contains(index, `class="tag house"`) {
			t.Errorf("the index neither names nor marks the house:\n%s", index)
		}
		for _, want := range []string{"<bdi>vesper house</bdi>", `<span class="tag">bot</span>`, "verifier since 1858"} {
			if !strings.Contains(hp, want) {
				t.Errorf("the house's page lacks %q", want)
			}
		}
		if strings.Contains(r.stderr, "unknown") {
			t.Errorf("stderr: %s", r.stderr)
		}
	})
	t.Run("nothing in the outbox", func(t *testing.T) {
		_, _, r := build(t, false)
		if !strings.Contains(r.stderr, "the house's key is unknown") {
			t.Errorf("stderr %q does not say the house is unknown", r.stderr)
		}
	})
}

// TestSiteBuildRefusesHome is issue 13 item 6 through the command: --out at
// a directory that is not a site build fails with the reason and keeps its
// files.
func TestSiteBuildRefusesHome(t *testing.T) {
	data := t.TempDir()
	st, err := store.Open(filepath.Join(data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	home := t.TempDir()
	thesis := filepath.Join(home, "thesis.txt")
	if err := os.WriteFile(thesis, []byte("four years"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := vesper(t, nil, nil, "site", "build", "--data", data, "--out", home, "--daemon", testkit.Key("house").PublicKey())
	if r.code == 0 || !strings.Contains(r.stderr, "refusing to replace "+home) {
		t.Errorf("exit %d, stderr %q; want a refusal naming %s", r.code, r.stderr, home)
	}
	if got, err := os.ReadFile(thesis); err != nil || string(got) != "four years" {
		t.Errorf("thesis.txt: %q, %v", got, err)
	}
}

// TestSiteBuildOpenings is issue 26's opening names through the command:
// the shipped table names a game's opening and says so; --openings DIR
// names it from the Lichess files there and says so; a directory that is
// not those files stops the build with a usage error naming the problem.
func TestSiteBuildOpenings(t *testing.T) {
	ctx := context.Background()
	house, alice := testkit.Key("house"), testkit.Key("alice")
	t0 := time.Now().Unix() - 3600
	data := t.TempDir()
	st, err := store.Open(filepath.Join(data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	m := testkit.NewMatch(alice, house, "chess", "", t0)
	m.Accept(t0 + 1800)
	m.Play([]string{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5"}, t0+1900, 60)
	for _, ev := range m.Events {
		if _, err := st.PutEvent(ctx, ev, nostr.MarshalEvent(ev), "", int64(ev.CreatedAt)+1); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	page := func(t *testing.T, args ...string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "site")
		args = append([]string{"site", "build", "--data", data, "--out", out, "--daemon", house.PublicKey()}, args...)
		if r := vesper(t, nil, nil, args...); r.code != 0 {
			t.Fatalf("site build: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "m", m.ID+".html"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	lichess := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(lichess, name), []byte("eco\tname\tpgn\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range opening.LichessFiles {
		write(name, "")
	}
	write("c.tsv", "C60\tRuy Lopez: As The Operator Loaded It\t1. e4 e5 2. Nf3 Nc6 3. Bb5\n")

	shipped := page(t)
	for _, want := range []string{"<strong>C60</strong> Ruy Lopez</p>", html.EscapeString(opening.Source)} {
		if !strings.Contains(shipped, want) {
			t.Errorf("with the shipped table, the page lacks %q", want)
		}
	}
	loaded := page(t, "--openings", lichess)
	for _, want := range []string{"Ruy Lopez: As The Operator Loaded It", opening.LichessSource} {
		if !strings.Contains(loaded, want) {
			t.Errorf("with --openings, the page lacks %q", want)
		}
	}

	write("a.tsv", "A00\tPolish Opening\t1. b5\n")
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(t.TempDir(), "nowhere"), "is not a directory"},
		{lichess, "a.tsv:2"},
	} {
		r := vesper(t, nil, nil, "site", "build", "--data", data, "--out", filepath.Join(t.TempDir(), "site"), "--openings", c.dir)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--openings") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("--openings %s: exit %d, stderr %q; want exit %d naming %q", c.dir, r.code, r.stderr, exitUsage, c.want)
		}
	}
}

// TestDaemonOpeningsRefused: the daemon refuses a bad --openings before it
// opens anything.
func TestDaemonOpeningsRefused(t *testing.T) {
	dir := t.TempDir()
	r := vesper(t, nil, nil, "daemon", "--data", t.TempDir(), "--openings", dir)
	if r.code != exitUsage || !strings.Contains(r.stderr, "lacks a.tsv") {
		t.Errorf("exit %d, stderr %q; want exit %d naming a.tsv", r.code, r.stderr, exitUsage)
	}
}

// `vesper site build --relays ... --source-url ...` lists the relays the
// daemon reads and links the source on the how-to (issue 37).
func TestSiteBuildRelaysAndSource(t *testing.T) {
	data := t.TempDir()
	st, err := store.Open(filepath.Join(data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	r := vesper(t, nil, nil, "site", "build", "--data", data, "--out", out, "--daemon", testkit.Key("house").PublicKey(),
		"--relays", "wss://relay.one.example,wss://relay.two.example", "--source-url", "https://git.example/vesper")
	if r.code != 0 {
		t.Fatalf("site build: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "how-to-play.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<code>wss://relay.one.example</code>, <code>wss://relay.two.example</code>`,
		`<a href="https://git.example/vesper">https://git.example/vesper</a>`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the how-to lacks %s", want)
		}
	}
}

// TestSiteBuildCPUProfile: --cpuprofile FILE leaves a Go CPU profile
// (gzipped protobuf) of the build there, and a path that cannot be created
// is a usage error.
func TestSiteBuildCPUProfile(t *testing.T) {
	data := t.TempDir()
	st, err := store.Open(filepath.Join(data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	args := []string{"site", "build", "--data", data, "--out", filepath.Join(t.TempDir(), "site"), "--daemon", testkit.Key("house").PublicKey()}
	if r := vesper(t, nil, nil, append(args, "--cpuprofile", prof)...); r.code != 0 {
		t.Fatalf("site build: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(prof); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("the profile: %d bytes, %v; want a gzipped pprof file", len(b), err)
	}
	r := vesper(t, nil, nil, append(args, "--cpuprofile", filepath.Join(t.TempDir(), "no", "such", "dir", "cpu.prof"))...)
	if r.code == 0 || !strings.Contains(r.stderr, "--cpuprofile") {
		t.Errorf("an impossible path: exit %d, stderr %q; want a usage error naming --cpuprofile", r.code, r.stderr)
	}
}
