package analysis

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// DebianStockfish is where Debian's stockfish package installs the engine:
// /usr/games, which is not on root's default PATH.
const DebianStockfish = "/usr/games/stockfish"

// ErrNoStockfish is returned by FindStockfish when no engine was found.
var ErrNoStockfish = errors.New("analysis: no stockfish found (not on PATH, not at " + DebianStockfish + ")")

// FindStockfish returns the Stockfish to run: explicit when it is given
// (it must be an executable file), else `stockfish` on PATH, else
// DebianStockfish.
func FindStockfish(explicit string) (string, error) {
	if explicit != "" {
		if err := executable(explicit); err != nil {
			return "", fmt.Errorf("analysis: stockfish %s: %w", explicit, err)
		}
		return explicit, nil
	}
	if p, err := exec.LookPath("stockfish"); err == nil {
		return p, nil
	}
	if executable(DebianStockfish) == nil {
		return DebianStockfish, nil
	}
	return "", ErrNoStockfish
}

func executable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case fi.IsDir():
		return errors.New("is a directory")
	case fi.Mode().Perm()&0o111 == 0:
		return errors.New("is not executable")
	}
	return nil
}
