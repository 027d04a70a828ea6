package site

import (
	"net/url"
	"slices"
	"strings"

	"vesper/nostr"
)

// howtoPage is the how-to: Relays are the relays the daemon reads and
// Source where vesper's source is, as the operator stated them (empty:
// not stated).
type howtoPage struct {
	Root, Title string
	Relays      []string
	Source      string
}

// maxReadRelays bounds the relays the how-to lists.
const maxReadRelays = 20

func (b *builder) howtoPage() *howtoPage {
	v := &howtoPage{Root: "", Title: "How to play", Source: sourceURL(b.in.SourceURL)}
	for _, r := range b.in.ReadRelays {
		if u, err := nostr.NormalizeRelayURL(r); err == nil && !slices.Contains(v.Relays, u) && len(v.Relays) < maxReadRelays {
			v.Relays = append(v.Relays, u)
		}
	}
	return v
}

// sourceURL is the operator's source URL when it is an http(s) URL with a
// host and nothing to hide (no user, no control characters); else "".
func sourceURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		len(s) > 300 || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return ""
	}
	return u.String()
}
