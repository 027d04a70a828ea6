package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
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
