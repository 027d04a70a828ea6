package site

// HouseVerdict is what the house does with one challenge it could accept,
// as its daemon decided at Input.Now (arbiter.HousePlan): accept it at its
// next pass, or not, Why in words. Wait, when set, is when the house
// decides again: all that kept it from accepting was the challenge's age.
type HouseVerdict struct {
	Accept bool
	Why    string
	Wait   int64
}

// houseUnknown is the house column of an open challenge old enough for
// section 3 when no daemon's decision came with the build.
const houseUnknown = "may accept, if it has a game free"

// houseOpen fills the house column of the open challenge s, open to
// anyone and not the house's own: what the house's daemon decided
// (Input.HouseOpen), never this package's reading of section 3, so that
// "may accept now" is not shown on a challenge the house will not take
// (its cap, one game per opponent, --no-play: issue 26, item 8).
func (b *builder) houseOpen(r *openRow, s *card) {
	if b.in.HouseOpen == nil {
		r.DaemonIn = s.CreatedAt + DaemonAcceptDelay - b.in.Now
		if r.DaemonIn <= 0 {
			r.DaemonNote = houseUnknown
		}
		return
	}
	v, ok := b.in.HouseOpen[s.ID]
	switch {
	case !ok:
		r.DaemonNote = "not seen by the house yet"
	case v.Accept:
	case v.Wait > b.in.Now:
		r.DaemonIn = v.Wait - b.in.Now
	default:
		r.DaemonNote = b.houseWont(s.ID)
	}
}

// houseWont is why the house will not accept the open challenge id now,
// as its daemon decided: "" when it will, when only the challenge's age
// keeps it from doing so, or when no decision came with the build. A
// match page says it instead of what section 3 allows (issue 26, item 8).
func (b *builder) houseWont(id string) string {
	v, ok := b.in.HouseOpen[id]
	if !ok || v.Accept || v.Wait > b.in.Now {
		return ""
	}
	return cleanLine(v.Why, 100)
}
