package play

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"vesper/match"
	"vesper/nostr"
)

// Entry is one line of a game's journal: a decision record, the intent to
// move (written and synced before signing), the end.
type Entry struct {
	Type  string `json:"type"` // EntryIntent, EntryDecision, EntryFinal, ...
	Match string `json:"match"`
	At    int64  `json:"at"`
	Ply   int    `json:"ply,omitempty"`
	Move  string `json:"move,omitempty"`
	// Decision records.
	Mover    string    `json:"mover,omitempty"`
	Attempts []Attempt `json:"attempts,omitempty"`
	Fallback string    `json:"fallback,omitempty"`
	// Usage is the move's usage as published: the sum of its attempts'.
	Usage json.RawMessage `json:"usage,omitempty"`
	// Signed, on an intent, is the whole signed event, journaled before
	// it is sent: after a crash it is sent again as it is.
	Signed      json.RawMessage `json:"signed,omitempty"`
	Comment     string          `json:"comment,omitempty"`
	Reasoning   string          `json:"reasoning,omitempty"`
	Offer       string          `json:"offer,omitempty"`
	AcceptOffer bool            `json:"accept_offer,omitempty"`
	Event       string          `json:"event,omitempty"`
	SpentMS     int64           `json:"spent_ms,omitempty"`
	EngineMS    int64           `json:"engine_ms,omitempty"`
	// Eval is the engine's score from the mover's side, when it gave one.
	EvalCP *int `json:"eval_cp,omitempty"`
	// Final and other actions.
	Action  string `json:"action,omitempty"`
	Result  string `json:"result,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Color   string `json:"color,omitempty"`
	Note    string `json:"note,omitempty"`
}

// Attempt is one answer asked for: what came back and whether it counted.
type Attempt struct {
	N      int    `json:"n"`
	Answer string `json:"answer,omitempty"`
	Kind   string `json:"kind,omitempty"` // "" when it counted; else a Kind* token
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Form is how the answer was read (FormJSON, FormInText, ...).
	Form string `json:"form,omitempty"`
	MS   int64  `json:"ms"`
}

// Journal entry types.
const (
	EntryStart    = "start"    // the runner took the game (accepted it or was accepted)
	EntryIntent   = "intent"   // about to sign Move at Ply: replayed after a crash
	EntryDecision = "decision" // a decision and its attempts
	EntryAction   = "action"   // a signature, claim, offer, request
	EntryFinal    = "final"    // the result is final: the game is done
	EntryExpired  = "expired"  // the challenge expired unaccepted
)

// Journal is one game's file of JSON lines.
type Journal struct {
	mu   sync.Mutex
	path string
}

// OpenJournal opens (creating) dir/MATCH.jsonl.
func OpenJournal(dir, matchID string) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("play: journal: %w", err)
	}
	return &Journal{path: filepath.Join(dir, matchID+".jsonl")}, nil
}

// Append writes e as one line and syncs it to disk before returning: an
// intent must be on disk before the move it names is signed.
func (j *Journal) Append(e Entry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return appendEntry(j.path, e)
}

// appendEntry appends one synced line to path.
func appendEntry(path string, e Entry) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("play: journal: %w", err)
	}
	// The records hold the agent's reasoning in clear until the game is
	// over and revealed: the file is the key owner's alone, as the seat's
	// reasoning journal is (a journal of an older runner is closed too).
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("play: journal: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("play: journal: %w", err)
	}
	if _, err := f.Write(match.MarshalLine(e)); err != nil {
		f.Close()
		return fmt.Errorf("play: journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("play: journal: %w", err)
	}
	return f.Close()
}

// Entries reads the journal; a torn last line (a crash mid-write) is
// skipped.
func (j *Journal) Entries() ([]Entry, error) {
	return readEntries(j.path)
}

func readEntries(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("play: journal: %w", err)
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}

// PendingIntent is the move journaled for ply that no later entry settled
// (a decision record, which follows every signing): after a crash, the move
// to send again.
func PendingIntent(entries []Entry, ply int) (string, bool) {
	_, mv, ok := PendingSigned(entries, ply)
	return mv, ok
}

// PendingSigned is PendingIntent with the signed event the intent holds
// (nil for an intent of an older runner, which journaled the move only).
// An intent whose event does not parse or verify is none: it cannot have
// been sent.
func PendingSigned(entries []Entry, ply int) (*nostr.Event, string, bool) {
	var (
		ev   *nostr.Event
		move string
		ok   bool
	)
	for _, e := range entries {
		if e.Ply != ply {
			continue
		}
		switch e.Type {
		case EntryIntent:
			ev, move, ok = nil, e.Move, true
			if len(e.Signed) > 0 {
				got, err := nostr.ParseAndVerify(e.Signed)
				if err != nil {
					ev, move, ok = nil, "", false
					continue
				}
				ev, move = got, got.Content
			}
		case EntryDecision:
			ev, move, ok = nil, "", false
		}
	}
	return ev, move, ok
}

// Unfinished lists the matches of dir's journals with no final or expired
// entry: the games to follow after a restart.
func Unfinished(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		es, err := readEntries(p)
		if err != nil {
			return nil, err
		}
		done := false
		for _, e := range es {
			if e.Type == EntryFinal || e.Type == EntryExpired {
				done = true
			}
		}
		if !done {
			out = append(out, trimExt(filepath.Base(p)))
		}
	}
	return out, nil
}

func trimExt(name string) string { return name[:len(name)-len(filepath.Ext(name))] }
