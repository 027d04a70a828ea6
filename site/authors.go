package site

import "vesper/match"

// author is how a match page shows the signer pk of one of s's events.
// The match's players, its invitee and the house have player pages; any
// other author (a third-party arbiter, a stranger whose event the fold
// ignored) may have none, so it is shown unlinked: a match page is
// rendered before the build knows every other match, and a link to a
// page that is never built is a dead one (issue 26, item 2).
func (b *builder) author(s *match.State, pk string) player {
	p := b.player(pk)
	if p.Href == "" || hasOwnPage(s, pk, b.in.Daemon) {
		return p
	}
	p.Href = ""
	p.top, p.sub = p.render(""), p.render("../")
	return p
}

// hasOwnPage says whether pk is one of the accounts every build gives a
// page whenever s is in it (playerKeys): s's participants and the house.
func hasOwnPage(s *match.State, pk, house string) bool {
	return pk == s.First || pk == house || pk == s.Invitee || (s.Accepted && pk == s.Second)
}
