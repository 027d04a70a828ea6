package wire

import "vesper/nostr"

// Received is one checked event and the relay that sent it. The same event
// from several relays is delivered once per relay; the store dedupes.
type Received struct {
	Event *nostr.Event
	Relay string
	// Cursor, in a Received without an Event, is a cursor mark (sent only
	// with Config.MarkCursors): every event Relay held at that unix time was
	// sent on out before this mark.
	Cursor int64
	// Backfill, in a mark, is the relay's backfill progress to save with
	// the cursor (SaveMark); an empty one clears it.
	Backfill *Backfill
}

// Backfill is the progress of an unfinished backfill on one relay, kept so
// that a client that stops (a crash loop, say) resumes it instead of
// starting again from the newest page. Every event created in [Until[i],
// Top] that game filter i matches has been delivered; [Since, Until[i]] is
// still to do (nothing, once Until[i] <= Since). The zero value is "no
// backfill in progress".
type Backfill struct {
	Since, Top int64
	Until      []int64
}

// IsZero reports no backfill in progress.
func (b Backfill) IsZero() bool { return len(b.Until) == 0 }
