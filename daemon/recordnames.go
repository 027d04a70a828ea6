package daemon

import "vesper/match"

// recordNameWait is how long a final match's NIP-64 record waits for its
// players' profiles (counted from the event that made the result final):
// a record is signed once and carries the names it was signed with, so a
// player whose profile is still on its way would be a bare npub in it for
// good; a player with no profile anywhere must not hold it back forever
// (issue 26, item 1).
const recordNameWait = 30 * 60

// namesReady says whether s's record may be signed at now: both players'
// profiles are known to exp, or recordNameWait has passed since s went
// final.
func namesReady(known func(pubkey string) bool, s *match.State, now int64) bool {
	if known(s.First) && known(s.Second) {
		return true
	}
	return now-finalAt(s) >= recordNameWait
}

// finalAt is the created_at of the event that made s final (the latest
// used event when s carries no events).
func finalAt(s *match.State) int64 {
	for _, ev := range s.Events {
		if ev.ID == s.FinalEvent {
			return int64(ev.CreatedAt)
		}
	}
	return s.LastUsed
}
