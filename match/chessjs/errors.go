package chessjs

import (
	"errors"
	"fmt"
)

// ErrIllegalMove is wrapped by every *MoveError for a string chess.js refuses.
var ErrIllegalMove = errors.New("chessjs: illegal move")

// ErrNullMove is wrapped by every *MoveError for a string chess.js parses as
// the null move ("--", "--+", "-=-"...): PROTOCOL.md section 4 never allows it.
var ErrNullMove = errors.New("chessjs: null move")

// MoveError is the error of Move and Parse: the string and why it is refused.
// errors.Is(err, ErrIllegalMove) or errors.Is(err, ErrNullMove) tells which.
type MoveError struct {
	Input string
	Err   error
}

func (e *MoveError) Error() string {
	if e.Err == ErrNullMove {
		return fmt.Sprintf("chessjs: null move %q is never legal", e.Input)
	}
	return fmt.Sprintf("chessjs: illegal move %q", e.Input)
}

func (e *MoveError) Unwrap() error { return e.Err }

// FENError is the error of NewGameFromFEN.
type FENError struct {
	FEN    string
	Reason string
}

func (e *FENError) Error() string {
	return fmt.Sprintf("chessjs: invalid FEN %q: %s", e.FEN, e.Reason)
}
