package store

import (
	"context"
	"fmt"
)

// FinalResult is what a stored summary says of a final result, as the
// ratings need it: the players, the result ("first", "second", "draw")
// and At, the created_at of the event that made it final (-1 when that
// event is not stored).
type FinalResult struct {
	Match, Game, First, Second, Result string
	At                                 int64
}

// FinalResults lists the final results of the stored summaries, with
// neither an event read nor a match folded: a full site build's forecast
// of the ratings (site.BuildEach checks it against the folds). Summaries
// that are stale or dirty may say something else than a fold would: the
// build folds those instead (UnsettledMatches); a forecast that is wrong
// all the same (the store changed meanwhile) costs it a second pass,
// nothing more.
func (s *Store) FinalResults(ctx context.Context) ([]FinalResult, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT s.match, s.game, s.first, s.second,
		coalesce(json_extract(s.json, '$.result'), ''), coalesce(e.created_at, -1)
		FROM summaries s LEFT JOIN events e ON e.id = json_extract(s.json, '$.final_event')
		WHERE s.final = 1 AND s.second != ''`)
	if err != nil {
		return nil, fmt.Errorf("store: final results: %w", err)
	}
	defer rows.Close()
	var out []FinalResult
	for rows.Next() {
		var r FinalResult
		if err := rows.Scan(&r.Match, &r.Game, &r.First, &r.Second, &r.Result, &r.At); err != nil {
			return nil, fmt.Errorf("store: final results: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: final results: %w", err)
	}
	return out, nil
}
