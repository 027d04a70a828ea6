package match

// MaxPlies bounds the board moves of a game of kind under its rules, all
// of which end a game by themselves (PROTOCOL.md section 5), so that a
// caller can tell a long game from a flood without playing it: the game's
// Spec.MaxPlies. An unknown kind has no moves: 0.
func MaxPlies(kind string) int {
	g, err := LookupGame(kind)
	if err != nil {
		return 0
	}
	return g.MaxPlies
}
