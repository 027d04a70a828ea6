package play

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"vesper/match"
)

// series is a series' slots: game i is the runner's as first (it invites)
// when i is even and FirstWhite, or odd and not. The file (SeriesFile)
// records which match fills each slot, written before the challenge is
// posted ("posting") and after ("slot"), so a restart neither loses a
// game nor posts one twice.
type series struct {
	mu      sync.Mutex
	cfg     SeriesConfig
	path    string
	match   []string // slot -> match id
	outcome []string // slot -> win/draw/loss
	posting []bool   // a challenge for the slot may be on the relays
}

type seriesEntry struct {
	Type  string `json:"type"` // posting, slot
	Index int    `json:"index"`
	Match string `json:"match,omitempty"`
}

func loadSeries(dir string, cfg SeriesConfig) (*series, error) {
	if cfg.Games <= 0 || cfg.Opponent == "" {
		return nil, fmt.Errorf("play: a series needs an opponent and a number of games")
	}
	if strings.ContainsAny(cfg.Game+cfg.Opponent, `/\.`) {
		return nil, fmt.Errorf("play: series: game %q or opponent %q cannot name a file", cfg.Game, cfg.Opponent)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &series{cfg: cfg, path: filepath.Join(dir, SeriesFile(cfg)), match: make([]string, cfg.Games),
		outcome: make([]string, cfg.Games), posting: make([]bool, cfg.Games)}
	es, err := readSeries(s.path)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		if e.Index < 0 || e.Index >= cfg.Games {
			continue
		}
		switch e.Type {
		case "posting":
			s.posting[e.Index] = true
		case "slot":
			s.match[e.Index] = e.Match
		}
	}
	// The outcomes are in the games' journals.
	for i, id := range s.match {
		if id == "" {
			continue
		}
		ges, err := readEntries(filepath.Join(dir, "games", id+".jsonl"))
		if err != nil {
			return nil, err
		}
		for _, e := range ges {
			if e.Type == EntryFinal {
				s.outcome[i] = e.Outcome
			}
		}
	}
	return s, nil
}

// SeriesFile is the name of a series' file in the runner's directory. A
// series is its opponent, game, length and sides: another of any of them
// is another series, with a file of its own, so that a gomoku series never
// reads the chess series' games as its own.
func SeriesFile(cfg SeriesConfig) string {
	sides := "second"
	if cfg.FirstWhite {
		sides = "first"
	}
	if cfg.NoSwap {
		sides += "-noswap"
	}
	return fmt.Sprintf("series-%s-%s-%d-%s.jsonl", cfg.Game, cfg.Opponent, cfg.Games, sides)
}

func readSeries(path string) ([]seriesEntry, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []seriesEntry
	for _, line := range bytes.Split(b, []byte("\n")) {
		var e seriesEntry
		if json.Unmarshal(line, &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

func (s *series) journal(e seriesEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(match.MarshalLine(e)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (s *series) first(i int) bool {
	if s.cfg.NoSwap {
		return s.cfg.FirstWhite
	}
	return (i%2 == 0) == s.cfg.FirstWhite
}

// toPost lists the slots where the runner is first and no challenge was
// posted.
func (s *series) toPost() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for i := range s.match {
		if s.first(i) && s.match[i] == "" && !s.posting[i] {
			out = append(out, i)
		}
	}
	return out
}

// mark notes that slot i is being posted (in memory; the file's entry is
// written by the poster just before it signs).
func (s *series) mark(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posting[i] = true
}

// unmarkOrphans clears the posting marks of slots that no match filled.
func (s *series) unmarkOrphans() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.match {
		if s.match[i] == "" {
			s.posting[i] = false
		}
	}
}

// orphan is the slot a challenge of the key to the opponent fills when a
// crash came between its posting and the file's slot entry.
func (s *series) orphan(id string) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.match {
		if s.match[i] == id {
			return 0, false
		}
	}
	for i := range s.match {
		if s.first(i) && s.posting[i] && s.match[i] == "" {
			return i, true
		}
	}
	return 0, false
}

// nextSecond is the first slot where the runner is second and no match is
// assigned: the opponent's next invitation fills it.
func (s *series) nextSecond() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.match {
		if !s.first(i) && s.match[i] == "" {
			return i, true
		}
	}
	return 0, false
}

func (s *series) assign(i int, id string) error {
	s.mu.Lock()
	s.match[i] = id
	s.mu.Unlock()
	return s.journal(seriesEntry{Type: "slot", Index: i, Match: id})
}

// expired frees the slot of a challenge that expired unaccepted, so that
// it is posted (or taken) again; the file's empty slot entry says so.
func (s *series) expired(id string) {
	s.mu.Lock()
	idx := -1
	for i, m := range s.match {
		if m == id && s.outcome[i] == "" {
			idx = i
		}
	}
	if idx >= 0 {
		s.match[idx], s.posting[idx] = "", false
	}
	s.mu.Unlock()
	if idx >= 0 {
		_ = s.journal(seriesEntry{Type: "slot", Index: idx})
	}
}

func (s *series) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.match {
		if m == id {
			return true
		}
	}
	return false
}

func (s *series) result(id, outcome string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range s.match {
		if m == id {
			s.outcome[i] = outcome
		}
	}
}

// unfinished are the series' matches without an outcome.
func (s *series) unfinished() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, m := range s.match {
		if m != "" && s.outcome[i] == "" {
			out = append(out, m)
		}
	}
	return out
}

func (s *series) done() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.outcome {
		if o == "" {
			return false
		}
	}
	return true
}

func (s *series) score() Score {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sc Score
	for _, o := range s.outcome {
		sc.Add(o)
	}
	return sc
}
