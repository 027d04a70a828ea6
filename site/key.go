package site

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"

	"vesper/match"
)

// renderVersion changes by hand when the meaning of a match key changes;
// any change of the templates or of the binary changes keys by itself.
const renderVersion = "site/3"

// exeSum identifies the running binary, so a new release re-renders every
// match page even where the templates did not change. When the binary cannot
// be read, a random value makes every key new: rendering too much is safe,
// keeping a stale page is not.
var exeSum = sync.OnceValue(func() string {
	h := sha256.New()
	path, err := os.Executable()
	if err == nil {
		var f *os.File
		if f, err = os.Open(path); err == nil {
			_, err = io.Copy(h, f)
			f.Close()
		}
	}
	if err != nil {
		var r [32]byte
		_, _ = rand.Read(r[:])
		h.Write(r[:])
	}
	return hex.EncodeToString(h.Sum(nil))
})

func renderID(templateSource []byte) string {
	h := sha256.New()
	h.Write([]byte(renderVersion + "\x00" + exeSum() + "\x00"))
	h.Write(templateSource)
	return hex.EncodeToString(h.Sum(nil))
}

// clock is everything about "now" that a match's files show. The match key
// includes it, so a file is re-rendered exactly when one of these changes;
// the page shows absolute times for everything else.
type clock struct {
	Status      match.Status
	ClockOut    bool // active: the pending ply's clock has run out
	DaemonMay   bool // open, no invitee: the daemon may accept it now
	Arbitrable  bool // over, not final: arbitration may be requested
	DaemonAfter int64
}

func matchClock(c *card, now int64) clock {
	k := clock{Status: c.clock().Status(now), DaemonAfter: c.CreatedAt + DaemonAcceptDelay}
	switch k.Status {
	case match.StatusActive:
		k.ClockOut = c.clock().RanOut(now)
	case match.StatusOpen:
		k.DaemonMay = c.Invitee == "" && now >= k.DaemonAfter
	case match.StatusOver:
		k.Arbitrable = !c.Final && c.clock().DeadlinePassed(now)
	}
	return k
}

// matchKey hashes every input of a match's files: the events (their ids fix
// their content) and their seen_at entries (card.Events), the clock flags,
// the analysis (card.Analysis), the nevent's relay hints, the profiles of
// every account shown, the daemon's key (and its strength, on its
// games), the crosstable's
// games and the opening table.
func (b *builder) matchKey(c *card) string {
	h := sha256.New()
	var n [8]byte
	str := func(v string) {
		binary.BigEndian.PutUint64(n[:], uint64(len(v)))
		h.Write(n[:])
		h.Write([]byte(v))
	}
	k := matchClock(c, b.in.Now)
	str(b.renderID)
	str(b.in.Daemon)
	str(b.houseName) // names imitating it are flagged
	str(string(k.Status) + strconv.FormatBool(k.ClockOut) + strconv.FormatBool(k.DaemonMay) + strconv.FormatBool(k.Arbitrable))
	// The house's decision on an open challenge.
	str(b.houseWont(c.ID))
	if c.Final { // the page and the PGN show the ratings at this game
		for _, pk := range []string{c.First, c.Second} {
			r := b.ratingAt(c.Kind, pk, c.ID)
			str(strconv.FormatBool(r.Rated) + " " + strconv.Itoa(r.Before) + " " + strconv.Itoa(r.After))
		}
	}
	str(c.Events)
	// The crosstable: the pair's rated games; the opening table; the
	// house's strength, on its games.
	if c.Accepted {
		for _, g := range b.cross[c.Kind][pairKey(c.First, c.Second)] {
			str(g.Match + g.Result)
		}
	}
	str(b.openings.Digest())
	if d := b.in.Daemon; d != "" && (c.First == d || c.Second == d) {
		str(b.in.HouseStrength)
	}
	hints := b.hints(c) // the nevent on the page
	str(strconv.Itoa(len(hints)))
	for _, h := range hints {
		str(h)
	}
	// The analysis shown (its digest), or whether the page says it failed
	// or is still to come.
	str(c.Analysis + " " + strconv.FormatBool(b.gradesPending(c)))
	accounts := map[string]bool{c.First: true, c.Second: true, c.Invitee: true}
	for _, pk := range c.Authors {
		accounts[pk] = true
	}
	for _, pk := range sortedKeys(accounts) {
		p := b.in.Profiles[pk]
		str(pk)
		str(p.Name)
		str(strconv.FormatBool(p.Bot))
		str(p.Says())
	}
	return hex.EncodeToString(h.Sum(nil))
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
