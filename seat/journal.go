package seat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"vesper/nostr"
)

// The reasoning journal (PROTOCOL.md section 8.2) keeps, for each reasoning
// this key committed, the salt and text a reveal needs. It is written and
// fsync'd before the committing event is published, so that no crash can
// leave a commitment on the relays whose text is lost: a new process finds
// the entry and reveals it. It is secret until revealed (the salt is what
// keeps the hash closed), so it is made 0600 in a 0700 directory, and
// nothing prints it.
//
// One file per match, JSON lines, append-only: a commitment line
// {"event","match","salt","text","created_at"}, and once published a reveal
// line {"event","revealed":"<reveal id>"}. Appends never rewrite what a crash
// could tear except the last line, which a reader skips if it is cut.

// journalLine is one line of a match's journal file.
type journalLine struct {
	Event     string `json:"event"`
	Match     string `json:"match,omitempty"`
	Salt      string `json:"salt,omitempty"`
	Text      string `json:"text,omitempty"`
	CreatedAt int64  `json:"created_at,omitempty"`
	Revealed  string `json:"revealed,omitempty"` // the reveal event's id
}

// Committed is a journal entry: a reasoning this key committed in a match.
type Committed struct {
	Event     string
	Salt      string
	Text      string
	CreatedAt int64
	Revealed  string // the reveal event that published it, "" while pending
}

// journal is the directory of one key's reasoning journal.
type journal struct{ dir string }

func (j journal) file(match string) (string, error) {
	if j.dir == "" {
		return "", inputf("committing reasoning needs a journal directory (the seat's Journal)")
	}
	if !nostr.IsLowerHex(match, 64) {
		return "", fmt.Errorf("seat: journal: bad match id %q", match)
	}
	return filepath.Join(j.dir, match+".jsonl"), nil
}

// append writes lines to the match's file and makes them durable: the file
// is fsync'd, and on its creation the directory too, so the entry survives
// a crash that follows.
func (j journal) append(match string, lines ...journalLine) error {
	path, err := j.file(match)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
		return fmt.Errorf("seat: journal: %w", err)
	}
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, fs.ErrNotExist)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("seat: journal: %w", err)
	}
	var b bytes.Buffer
	for _, l := range lines {
		js, _ := json.Marshal(l)
		b.Write(js)
		b.WriteByte('\n')
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("seat: journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("seat: journal: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("seat: journal: %w", err)
	}
	if created {
		if d, err := os.Open(j.dir); err == nil {
			_ = d.Sync() // the new file's name; not every system can sync a directory
			d.Close()
		}
	}
	return nil
}

// entries reads a match's journal: its commitments in the order written,
// each with the reveal that published it. A missing file is no entries; a
// line that does not parse (the torn tail of a crash) is skipped.
func (j journal) entries(match string) ([]Committed, error) {
	path, err := j.file(match)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("seat: journal: %w", err)
	}
	var out []Committed
	at := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20) // a text may escape to several times its size
	for sc.Scan() {
		var l journalLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Event == "" {
			continue
		}
		i, ok := at[l.Event]
		switch {
		case l.Revealed != "" && ok:
			out[i].Revealed = l.Revealed
		case l.Salt != "" && !ok:
			at[l.Event] = len(out)
			out = append(out, Committed{Event: l.Event, Salt: l.Salt, Text: l.Text, CreatedAt: l.CreatedAt})
		}
	}
	return out, nil
}

// Journal returns this key's committed reasoning in a match (revealed or
// not), for a runner or a test; it is secret until revealed.
func (s *Seat) Journal(match string) ([]Committed, error) {
	return s.journal().entries(match)
}

func (s *Seat) journal() journal { return journal{dir: s.journalDir()} }
