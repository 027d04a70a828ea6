package site

import (
	"html/template"
	"slices"
	"strings"

	"vesper/nostr"
)

// playerKeys are every valid pubkey that gets a page: players, invitees,
// rated players and the daemon (the index names it), sorted.
func (b *builder) playerKeys() []string {
	var keys []string
	if nostr.IsLowerHex(b.in.Daemon, 64) {
		keys = append(keys, b.in.Daemon)
	}
	for pk := range b.byPlayer {
		if nostr.IsLowerHex(pk, 64) {
			keys = append(keys, pk)
		}
	}
	for _, kind := range kinds {
		for _, p := range b.tables[kind] {
			if _, ok := b.byPlayer[p.Pubkey]; !ok && nostr.IsLowerHex(p.Pubkey, 64) {
				keys = append(keys, p.Pubkey)
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// listed reports whether an account appears in listings.
func (b *builder) listed(pk string) bool {
	return b.in.ListAll || (pk != "" && pk == b.in.Daemon) || b.in.Profiles[pk].Bot
}

// matchListed reports whether a match appears on the index and in
// matches.json: all its players are listed.
func (b *builder) matchListed(c *card) bool {
	return b.listed(c.First) && (!c.Accepted || b.listed(c.Second))
}

// player returns the view of a pubkey, cached for the build.
func (b *builder) player(pk string) player {
	if pk == "" {
		return player{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if p, ok := b.players[pk]; ok {
		return *p
	}
	p := &player{Pubkey: pk, Daemon: pk != "" && pk == b.in.Daemon}
	if nostr.IsLowerHex(pk, 64) {
		prof := b.in.Profiles[pk]
		p.Npub = nostr.Npub(pk)
		p.Short = shortNpub(p.Npub)
		p.Href = "p/" + pk + ".html"
		p.Name = cleanLine(prof.Name, maxName)
		p.Bot = prof.Bot
		p.Says = prof.Says()
		p.Warn = nameWarning(p.Name, p.Daemon, b.houseName)
	} else {
		p.Short = "invalid key"
	}
	p.top, p.sub = p.render(""), p.render("../")
	b.players[pk] = p
	return *p
}

// shortNpub keeps the start and the end of an npub: "npub1abcdef…uvwxyz".
func shortNpub(npub string) string {
	if len(npub) < 20 {
		return npub
	}
	return npub[:11] + "…" + npub[len(npub)-6:]
}

// player is how a page shows an account.
type player struct {
	Pubkey, Npub, Short, Name string
	Daemon, Bot               bool
	Href                      string // from the site root; "" for an invalid key
	// Warn flags a name that imitates a key or the house (nameWarning).
	Warn string
	// Says is the self-reported identity (Profile.Says), shown as such.
	Says string

	top, sub template.HTML // Who for pages at the root and one level down
}

// Who is the account as a link to its page, with the short npub beside the
// name and the house's mark. Pages show hundreds of these, so it is
// rendered once per account and build.
func (p player) Who(root string) template.HTML {
	switch {
	case p.Pubkey == "":
		return `<span class="mute">nobody yet</span>`
	case root == "" && p.top != "":
		return p.top
	case root == "../" && p.sub != "":
		return p.sub
	}
	return p.render(root)
}

// whoTpl is the markup of Who. A name is only ever the link text; the key
// beside it is monospace and outside the link, and the house's mark is a
// fixed string, so a name can imitate neither (issue 17: a profile named
// "vesper house", or named like the house's short npub, read exactly like
// the house). It is rendered once per player and page depth through
// html/template like every other page part, so the name is escaped in its
// context.
var whoTpl = template.Must(template.New("who").Parse(
	`<span class="who">` +
		`{{if .Href}}<a href="{{.Root}}{{.Href}}" title="{{.Npub}}">{{end}}` +
		`{{if .Name}}<bdi class="nm">{{.Name}}</bdi>{{else}}<code class="npub">{{.Short}}</code>{{end}}` +
		`{{if .Href}}</a>{{end}}` +
		`{{if .Name}} <code class="npub">{{.Short}}</code>{{end}}` +
		`{{if .Daemon}} <span class="tag house">house</span>{{end}}` +
		`{{with .Warn}} <span class="tag warn">{{.}}</span>{{end}}</span>`))

// render writes the markup of Who for pages at root.
func (p player) render(root string) template.HTML {
	if p.Pubkey == "" {
		return ""
	}
	var b strings.Builder
	err := whoTpl.Execute(&b, struct {
		Root, Href, Npub, Name, Short, Warn string
		Daemon                              bool
	}{root, p.Href, p.Npub, p.Name, p.Short, p.Warn, p.Daemon})
	if err != nil {
		return template.HTML(template.HTMLEscapeString(p.Label()))
	}
	return template.HTML(b.String())
}

// Label is the name, or the short npub for an account without one.
func (p player) Label() string {
	if p.Name != "" {
		return p.Name
	}
	return p.Short
}

func (p player) pgnName() string {
	if p.Pubkey == "" {
		return "?"
	}
	return p.Label()
}
