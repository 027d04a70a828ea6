// Package chessjs runs the real chess.js 1.4.0 from Go tests: the copy
// that `npm ci --prefix conformance/chessjs` installs beside this file,
// through the scripts of this directory (README.md). It is for tests
// only; nothing in vesper's binary imports it.
//
// LoadPGNs is NIP-64's reader: the usual Nostr chess client reads a kind
// 64 record's PGN with chess.js loadPgn, so a record vesper publishes must
// load there.
package chessjs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// ErrNotInstalled is wrapped by the errors of a machine without node or
// without chess.js installed here: tests skip on it (CI installs both).
var ErrNotInstalled = errors.New("chess.js 1.4.0 is not installed: run `npm ci --prefix conformance/chessjs` from the repository root (needs node)")

// Loaded is what chess.js made of one PGN.
type Loaded struct {
	Name string `json:"name"`
	// OK says loadPgn accepted the PGN; Error is what it threw otherwise.
	OK    bool   `json:"ok"`
	Error string `json:"error"`
	// Headers are getHeaders(): the tag pairs as chess.js read them (the
	// Seven Tag Roster's placeholders included).
	Headers map[string]string `json:"headers"`
	Moves   []string          `json:"moves"` // UCI, promotions lowercase
	SAN     []string          `json:"san"`
	FEN     string            `json:"fen"` // fen() after the last move
}

// Dir is this directory, where package.json and the scripts are.
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Dir(file)
}

// Node returns the node binary, or an error wrapping ErrNotInstalled when
// node or chess.js is missing.
func Node() (string, error) {
	bin, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(Dir(), "node_modules", "chess.js", "package.json"))
	}
	if err != nil {
		return "", fmt.Errorf("%w (%v)", ErrNotInstalled, err)
	}
	return bin, nil
}

// LoadPGNs has chess.js 1.4.0's loadPgn read every PGN, by name, in one
// Node process (pgn.js), and returns what it made of each.
func LoadPGNs(ctx context.Context, pgns map[string]string) (map[string]Loaded, error) {
	bin, err := Node()
	if err != nil {
		return nil, err
	}
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for name, text := range pgns {
		if err := enc.Encode(map[string]string{"name": name, "pgn": text}); err != nil {
			return nil, err
		}
	}
	cmd := exec.CommandContext(ctx, bin, "pgn.js")
	cmd.Dir = Dir()
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("chessjs: node pgn.js: %v: %s", err, stderr.Bytes())
	}
	got := make(map[string]Loaded, len(pgns))
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var l Loaded
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("chessjs: pgn.js printed %q: %v", sc.Text(), err)
		}
		got[l.Name] = l
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("chessjs: reading pgn.js: %v", err)
	}
	if len(got) != len(pgns) {
		return nil, fmt.Errorf("chessjs: pgn.js answered for %d PGNs of %d", len(got), len(pgns))
	}
	return got, nil
}
