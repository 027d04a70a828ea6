package relay

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/relayd"
)

func TestPublishPerRelay(t *testing.T) {
	good := relaytest.StartRelay(t, relayd.Options{})
	refusing := relaytest.StartRelay(t, relayd.Options{})
	dead := testkit.DeadRelay(t)
	key := nostr.GenerateKey()
	ev := relaytest.Move(t, key, "m", 1, time.Now().Unix())
	refusing.SetRejectWrites("blocked: not today") // not announced in NIP-11
	relays := []string{good.URL(), dead, refusing.URL()}
	results := Publish(t.Context(), relays, ev, testkit.Scale(5*time.Second))
	if len(results) != 3 {
		t.Fatalf("got %d results, want 3", len(results))
	}
	tests := []struct {
		name    string
		res     PublishResult
		ok      bool
		message string
		err     bool
	}{
		{"accepting relay", results[0], true, "", false},
		{"dead relay", results[1], false, "", true},
		{"refusing relay", results[2], false, "blocked: not today", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.res.OK != tt.ok || tt.res.Message != tt.message || (tt.res.Err != nil) != tt.err {
				t.Errorf("got %+v, want ok=%v message=%q err=%v", tt.res, tt.ok, tt.message, tt.err)
			}
		})
	}
	if got, want := Accepted(results), []string{relaytest.URL(good)}; !slices.Equal(got, want) {
		t.Errorf("Accepted: got %v, want %v", got, want)
	}
	if !good.Has(ev.ID) {
		t.Error("the accepting relay does not have the event")
	}
}

func TestPublishDuplicateCountsAsAccepted(t *testing.T) {
	for _, notOK := range []bool{false, true} {
		name := map[bool]string{false: "OK true", true: "OK false duplicate:"}[notOK]
		t.Run(name, func(t *testing.T) {
			r := relaytest.StartRelay(t, relayd.Options{DuplicateNotOK: notOK})
			ev := relaytest.Move(t, nostr.GenerateKey(), "m", 1, time.Now().Unix())
			relaytest.Seed(t, r, ev)
			res := Publish(t.Context(), []string{r.URL()}, ev, testkit.Scale(5*time.Second))
			if !res[0].OK || res[0].Err != nil {
				t.Fatalf("got %+v, want accepted", res[0])
			}
			if notOK && !strings.HasPrefix(res[0].Message, "duplicate:") {
				t.Errorf("message %q, want the relay's duplicate: answer", res[0].Message)
			}
		})
	}
}

func TestPublishRateLimited(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	r.SetRejectWrites("rate-limited: slow down")
	ev := relaytest.Move(t, nostr.GenerateKey(), "m", 1, time.Now().Unix())
	done := make(chan []PublishResult, 1)
	go func() {
		done <- PublishWith(t.Context(), []string{r.URL()}, ev, PublishOptions{Timeout: testkit.Scale(10 * time.Second), IgnoreNIP11: true})
	}()
	waitFor(t, "the first, refused attempt", func() bool { return r.Writes() >= 1 })
	r.SetRejectWrites("")
	res := <-done
	if !res[0].OK {
		t.Fatalf("got %+v, want accepted after backing off", res[0])
	}
}

func TestPublishNIP11AndAuth(t *testing.T) {
	authRelay := relaytest.StartRelay(t, relayd.Options{RequireAuth: true})
	readOnly := relaytest.StartRelay(t, relayd.Options{RestrictedWrites: true, RejectWrites: "restricted: read only"})
	key := nostr.GenerateKey()
	tests := []struct {
		name     string
		relay    *relayd.Relay
		opts     PublishOptions
		ok       bool
		skipped  bool
		msgStart string
	}{
		{"auth_required, no key: skipped", authRelay, PublishOptions{}, false, true, ""},
		{"auth_required, key: AUTH then OK", authRelay, PublishOptions{Key: key}, true, false, ""},
		{"no key, NIP-11 ignored: refused", authRelay, PublishOptions{IgnoreNIP11: true}, false, false, "auth-required:"},
		{"restricted_writes: skipped", readOnly, PublishOptions{Key: key}, false, true, ""},
		{"restricted_writes, NIP-11 ignored: refused", readOnly, PublishOptions{IgnoreNIP11: true}, false, false, "restricted:"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := relaytest.Move(t, key, "m", i+1, time.Now().Unix())
			tt.opts.Timeout = testkit.Scale(5 * time.Second)
			res := PublishWith(t.Context(), []string{tt.relay.URL()}, ev, tt.opts)[0]
			if res.OK != tt.ok || errors.Is(res.Err, ErrWriteRestricted) != tt.skipped || !strings.HasPrefix(res.Message, tt.msgStart) {
				t.Errorf("got %+v, want ok=%v skipped=%v message %q...", res, tt.ok, tt.skipped, tt.msgStart)
			}
		})
	}
}
