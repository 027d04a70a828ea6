package main

// opening is a short, balanced line from standard opening theory, in UCI.
// Each is played twice, once with each engine as White, so that neither
// side profits from a line that happens to favour one colour.
type opening struct {
	name  string
	moves []string
}

var openings = []opening{
	{"Ruy Lopez", []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"}},
	{"Italian Game", []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"}},
	{"Scotch Game", []string{"e2e4", "e7e5", "g1f3", "b8c6", "d2d4", "e5d4"}},
	{"Petrov Defence", []string{"e2e4", "e7e5", "g1f3", "g8f6", "f3e5", "d7d6"}},
	{"Sicilian, Open d6", []string{"e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4"}},
	{"Sicilian, Open e6", []string{"e2e4", "c7c5", "g1f3", "e7e6", "d2d4", "c5d4"}},
	{"French Defence", []string{"e2e4", "e7e6", "d2d4", "d7d5", "b1c3", "g8f6"}},
	{"Caro-Kann Defence", []string{"e2e4", "c7c6", "d2d4", "d7d5", "b1c3", "d5e4"}},
	{"Scandinavian Defence", []string{"e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5"}},
	{"Pirc Defence", []string{"e2e4", "d7d6", "d2d4", "g8f6", "b1c3", "g7g6"}},
	{"Queen's Gambit Declined", []string{"d2d4", "d7d5", "c2c4", "e7e6", "b1c3", "g8f6"}},
	{"Slav Defence", []string{"d2d4", "d7d5", "c2c4", "c7c6", "g1f3", "g8f6"}},
	{"Queen's Gambit Accepted", []string{"d2d4", "d7d5", "c2c4", "d5c4", "g1f3", "g8f6"}},
	{"King's Indian Defence", []string{"d2d4", "g8f6", "c2c4", "g7g6", "b1c3", "f8g7"}},
	{"Nimzo-Indian Defence", []string{"d2d4", "g8f6", "c2c4", "e7e6", "b1c3", "f8b4"}},
	{"Queen's Indian Defence", []string{"d2d4", "g8f6", "c2c4", "e7e6", "g1f3", "b7b6"}},
	{"Grunfeld Defence", []string{"d2d4", "g8f6", "c2c4", "g7g6", "b1c3", "d7d5"}},
	{"London System", []string{"d2d4", "d7d5", "c1f4", "g8f6", "e2e3", "c7c5"}},
	{"English Opening", []string{"c2c4", "e7e5", "b1c3", "g8f6", "g1f3", "b8c6"}},
	{"Reti Opening", []string{"g1f3", "d7d5", "c2c4", "e7e6", "g2g3", "g8f6"}},
}
