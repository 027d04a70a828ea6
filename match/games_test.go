package match

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"vesper/nostr"
)

func TestGamesListChessGomokuConnect4(t *testing.T) {
	if got, want := GameKinds(), []string{nostr.GameChess, nostr.GameGomoku, nostr.GameConnect4}; !slices.Equal(got, want) {
		t.Errorf("GameKinds() = %q, want %q", got, want)
	}
	if got, want := KindList(), `"chess", "gomoku" or "connect4"`; got != want {
		t.Errorf("KindList() = %s, want %s", got, want)
	}
}

// Every registered game provides every field a layer reads, and its
// adapter reports the kind it is registered under.
func TestEveryGameProvidesEveryHook(t *testing.T) {
	for _, g := range Games() {
		t.Run(g.Kind, func(t *testing.T) {
			if g.Kind == "" || g.Name == "" || g.Noun == "" || g.MoveHelp == "" || g.Sides[0] == "" || g.Sides[1] == "" || g.Sides[0] == g.Sides[1] {
				t.Errorf("spec %+v: a name or a side is missing", g)
			}
			if g.New == nil || g.MaxPlies <= 0 {
				t.Fatalf("spec %+v: no start position or no length bound", g)
			}
			b := g.New()
			if b.Kind() != g.Kind || b.Plies() != 0 || b.Hash() == "" {
				t.Errorf("start of %s: kind %q, %d plies, hash %q", g.Kind, b.Kind(), b.Plies(), b.Hash())
			}
			if over, _, _ := b.Outcome(); over {
				t.Errorf("start of %s is over", g.Kind)
			}
		})
	}
}

func TestUnknownGameIsAnError(t *testing.T) {
	for _, kind := range []string{"", "go", "Chess", "chess ", "Connect4", "connect_four", "connect-four"} {
		_, err := LookupGame(kind)
		var u *UnknownGameError
		if !errors.As(err, &u) || u.Kind != kind {
			t.Errorf("LookupGame(%q) = %v, want an *UnknownGameError", kind, err)
		}
		if _, err := NewGame(kind); !errors.As(err, &u) {
			t.Errorf("NewGame(%q) = %v, want an *UnknownGameError", kind, err)
		}
		if s := Side(kind, First); s != "" {
			t.Errorf("Side(%q, first) = %q, want none", kind, s)
		}
	}
}

func TestSide(t *testing.T) {
	for _, c := range []struct{ kind, role, want string }{
		{nostr.GameChess, First, "white"},
		{nostr.GameChess, Second, "black"},
		{nostr.GameGomoku, First, "black"}, // black moves first in gomoku
		{nostr.GameGomoku, Second, "white"},
		{nostr.GameConnect4, First, "red"}, // section 5.1: Red first
		{nostr.GameConnect4, Second, "yellow"},
		{nostr.GameChess, "", ""},
		{nostr.GameChess, Draw, ""},
	} {
		if got := Side(c.kind, c.role); got != c.want {
			t.Errorf("Side(%q, %q) = %q, want %q", c.kind, c.role, got, c.want)
		}
	}
}

// The sentences built from the registry name every game.
func TestRegistrySentences(t *testing.T) {
	if got, want := NounList(), "chess, gomoku and Connect Four"; got != want {
		t.Errorf("NounList() = %q, want %q", got, want)
	}
	if got, want := SidesText(First), "White in chess, Black in gomoku and Red in Connect Four"; got != want {
		t.Errorf("SidesText(first) = %q, want %q", got, want)
	}
	if got, want := SidesText(Second), "Black in chess, White in gomoku and Yellow in Connect Four"; got != want {
		t.Errorf("SidesText(second) = %q, want %q", got, want)
	}
	help := MoveHelpText()
	for _, g := range Games() {
		if !strings.Contains(help, g.Noun+": "+g.MoveHelp) {
			t.Errorf("MoveHelpText() = %q lacks %s", help, g.Noun)
		}
	}
}
