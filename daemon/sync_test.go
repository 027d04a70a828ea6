package daemon

import (
	"context"
	"testing"
	"time"

	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

// The fallback's challenge window: from the start for a relay never
// synced, scanned in full too long ago, or on a full sync; otherwise from
// the last completed sync less the fold's accept window and the skew
// margin, so that no challenge still open at that sync is missed.
func TestSyncChallengeWindow(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	ctx := context.Background()
	const url = "wss://r.example"
	if got := n.syncOptions(ctx, time.Hour, false).ChallengesSince(url); got != 0 {
		t.Errorf("never synced: since %d, want 0", got)
	}
	last := tNow - 600
	for _, what := range []string{store.SyncMarkDone, store.SyncMarkFullScan} {
		if err := n.st.SetSyncMark(ctx, url, what, last); err != nil {
			t.Fatal(err)
		}
	}
	want := last - match.ChallengeExpiry - syncMargin
	if got := n.syncOptions(ctx, time.Hour, false).ChallengesSince(url); got != want {
		t.Errorf("synced 10 minutes ago: since %d, want %d", got, want)
	}
	if got := n.syncOptions(ctx, time.Hour, true).ChallengesSince(url); got != 0 {
		t.Errorf("a full sync: since %d, want 0", got)
	}
	if got := n.syncOptions(ctx, 5*time.Minute, false).ChallengesSince(url); got != 0 {
		t.Errorf("scanned in full longer ago than fullEvery: since %d, want 0", got)
	}
}
