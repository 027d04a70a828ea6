package relayd

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip42"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// rawClient speaks NIP-01 over a bare websocket, one request at a time:
// these tests check the relay, so they use no client library of ours and
// none of go-nostr's (whose Relay type races under -race).
type rawClient struct {
	t         *testing.T
	c         *ws.Conn
	challenge string
	// challenges counts the AUTH messages read.
	challenges int
}

func dial(t *testing.T, url string) *rawClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(5*time.Second))
	defer cancel()
	c, _, err := ws.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(1 << 24)
	t.Cleanup(func() { c.CloseNow() })
	return &rawClient{t: t, c: c}
}

func (rc *rawClient) send(ctx context.Context, msg ...any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return rc.c.Write(ctx, ws.MessageText, b)
}

// next reads one message, remembering AUTH challenges on the way.
func (rc *rawClient) next(ctx context.Context) ([]json.RawMessage, string, error) {
	for {
		_, b, err := rc.c.Read(ctx)
		if err != nil {
			return nil, "", err
		}
		var msg []json.RawMessage
		if err := json.Unmarshal(b, &msg); err != nil || len(msg) == 0 {
			return nil, "", fmt.Errorf("bad message %s", b)
		}
		var label string
		json.Unmarshal(msg[0], &label)
		if label == "AUTH" && len(msg) > 1 {
			json.Unmarshal(msg[1], &rc.challenge)
			rc.challenges++
			continue
		}
		return msg, label, nil
	}
}

// query sends a REQ and returns its stored events, or the CLOSED reason.
func (rc *rawClient) query(f gn.Filter) (evs []*gn.Event, closed string, err error) {
	ctx, cancel := context.WithTimeout(rc.t.Context(), testkit.Scale(5*time.Second))
	defer cancel()
	if err := rc.send(ctx, "REQ", "q", f); err != nil {
		return nil, "", err
	}
	for {
		msg, label, err := rc.next(ctx)
		if err != nil {
			return nil, "", err
		}
		switch label {
		case "EVENT":
			ev := &gn.Event{}
			if err := ev.UnmarshalJSON(msg[2]); err != nil {
				return nil, "", err
			}
			evs = append(evs, ev)
		case "EOSE":
			return evs, "", rc.send(ctx, "CLOSE", "q")
		case "CLOSED":
			json.Unmarshal(msg[2], &closed)
			return nil, closed, nil
		}
	}
}

func (rc *rawClient) mustQuery(f gn.Filter) []*gn.Event {
	rc.t.Helper()
	evs, closed, err := rc.query(f)
	if err != nil || closed != "" {
		rc.t.Fatalf("query %v: %v %s", f, err, closed)
	}
	return evs
}

// okFor sends env and waits for the OK about id.
func (rc *rawClient) okFor(id string, env ...any) (bool, string, error) {
	ctx, cancel := context.WithTimeout(rc.t.Context(), testkit.Scale(5*time.Second))
	defer cancel()
	if err := rc.send(ctx, env...); err != nil {
		return false, "", err
	}
	for {
		msg, label, err := rc.next(ctx)
		if err != nil {
			return false, "", err
		}
		if label != "OK" || len(msg) < 4 {
			continue
		}
		var gotID, reason string
		var ok bool
		json.Unmarshal(msg[1], &gotID)
		json.Unmarshal(msg[2], &ok)
		json.Unmarshal(msg[3], &reason)
		if gotID == id {
			return ok, reason, nil
		}
	}
}

func (rc *rawClient) publish(ev *gn.Event) (bool, string) {
	rc.t.Helper()
	ok, reason, err := rc.okFor(ev.ID, "EVENT", ev)
	if err != nil {
		rc.t.Fatal(err)
	}
	return ok, reason
}

func (rc *rawClient) mustPublish(ev *gn.Event) {
	rc.t.Helper()
	if ok, reason := rc.publish(ev); !ok {
		rc.t.Fatalf("publish refused: %s", reason)
	}
}

func (rc *rawClient) auth(url string, key nostr.SecretKey) (bool, string) {
	rc.t.Helper()
	ev := nip42.CreateUnsignedAuthEvent(rc.challenge, key.PublicKey(), url)
	if err := key.Sign(&ev); err != nil {
		rc.t.Fatal(err)
	}
	ok, reason, err := rc.okFor(ev.ID, "AUTH", ev)
	if err != nil {
		rc.t.Fatal(err)
	}
	return ok, reason
}
