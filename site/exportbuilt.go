package site

// BuiltExporter is an Exporter with the ratings of a published build.
type BuiltExporter struct {
	*Exporter
	final map[string]bool
}

// Final reports whether the build shows match final: only then does its
// PGN (ratings included) hold what the build's .pgn file holds.
func (e *BuiltExporter) Final(match string) bool { return e.final[match] }

// PublishedExporter is NewExporter with the ratings of the build published
// at outDir (read from its cards): the PGNs it writes equal that build's
// .pgn files for the same profiles, without folding any match again. It
// returns ErrNoPrevious when outDir holds no build.
func PublishedExporter(in Input, outDir string) (*BuiltExporter, error) {
	dir := publishedBuild(outDir)
	if dir == "" {
		return nil, ErrNoPrevious
	}
	cards, err := readCards(dir)
	if err != nil {
		return nil, ErrNoPrevious
	}
	list := make([]*card, 0, len(cards))
	final := map[string]bool{}
	for id, c := range cards {
		list = append(list, c)
		if c.Final {
			final[id] = true
		}
	}
	in.Ratings, in.RatingGames = nil, cardGames(list)
	e, err := NewExporter(in)
	if err != nil {
		return nil, err
	}
	return &BuiltExporter{Exporter: e, final: final}, nil
}
