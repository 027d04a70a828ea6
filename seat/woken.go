package seat

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Wait wakes once per offer and per request: an agent that leaves an offer
// unanswered was woken by it at once on every later wait, for the rest of
// the game, and its loop spun. What a wait has woken for is remembered per
// key and match, in a file beside the lock (LockDir) so that the next
// process of the key knows it too, or in this process when there is no
// lock directory. WaitOptions.Seen adds to it.

// wokenMem is the memory of a seat without a lock directory.
var wokenMem = struct {
	sync.Mutex
	m map[string][]string
}{m: map[string][]string{}}

func (s *Seat) wokenPath(id string) string {
	dir := s.lockDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, s.Me()+"-"+id+".woken")
}

// woken lists the offers and requests of match id that a wait of this key
// has already woken for.
func (s *Seat) woken(id string) []string {
	if p := s.wokenPath(id); p != "" {
		if b, err := os.ReadFile(p); err == nil {
			return strings.Fields(string(b))
		}
		return nil
	}
	wokenMem.Lock()
	defer wokenMem.Unlock()
	return slices.Clone(wokenMem.m[s.Me()+"-"+id])
}

// remember records that a wait of this key woke for events. A line each,
// appended: an append this small is one write, so two processes cannot
// interleave within a line. A failed write costs a second wake only.
func (s *Seat) remember(id string, events ...string) {
	if len(events) == 0 {
		return
	}
	if p := s.wokenPath(id); p != "" {
		if os.MkdirAll(filepath.Dir(p), 0o700) != nil {
			return
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return
		}
		defer f.Close()
		_, _ = f.WriteString(strings.Join(events, "\n") + "\n")
		return
	}
	wokenMem.Lock()
	defer wokenMem.Unlock()
	k := s.Me() + "-" + id
	for _, ev := range events {
		if !slices.Contains(wokenMem.m[k], ev) {
			wokenMem.m[k] = append(wokenMem.m[k], ev)
		}
	}
}

// wokeFor is what a wake for reason brings to remember: the offer, or the
// other player's requests.
func wokeFor(reason string, stt *Status, me string) []string {
	switch {
	case reason == WakeOffer && stt.Offer != nil:
		return []string{stt.Offer.Event}
	case reason == WakeRequest:
		var ids []string
		for _, r := range stt.Requests {
			if r.Author != me {
				ids = append(ids, r.Event)
			}
		}
		return ids
	}
	return nil
}
