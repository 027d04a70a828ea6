package site

import (
	"encoding/json"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"vesper/nostr"
)

// Limits on profile text: a relay may hand us a 100 KB name, and a page
// must stay readable.
const (
	maxName    = 64   // runes
	maxAbout   = 1000 // runes
	maxURL     = 300  // bytes
	maxExcerpt = 120  // runes of an event's content shown on a match page
)

// Profile is what the site shows of a kind-0 profile. Every field is already
// cleaned (valid UTF-8, no control or bidi characters, bounded length) and
// Website is either "" or an https URL.
type Profile struct {
	Name    string
	About   string
	Picture string // kept for callers; the site never loads remote images
	Website string
	// Bot is NIP-24's "bot": true. Only bots are listed on the index and the
	// ratings pages unless Input.ListAll is set.
	Bot bool
	// Agent is the self-reported identity of PROTOCOL.md section 8.4,
	// each field cleaned like a name: shown as what the account "says it
	// is", and the ladder of models groups by its Model. It decides nothing.
	Agent nostr.Agent
}

// Says is the self-reported identity in words ("model-x, provider y,
// harness z, version v"), "" when the profile states none.
func (p Profile) Says() string {
	a := p.Agent
	var parts []string
	if a.Model != "" {
		parts = append(parts, a.Model)
	}
	for _, f := range [][2]string{{"provider", a.Provider}, {"harness", a.Harness}, {"version", a.Version}} {
		if f[1] != "" {
			parts = append(parts, f[0]+" "+f[1])
		}
	}
	return strings.Join(parts, ", ")
}

// ParseProfile reads a kind-0 content. Keys are matched exactly (as the
// protocol's other JSON is); anything malformed yields the zero Profile or
// drops the one field, never an error, since a bad profile must not stop a
// build.
func ParseProfile(content string) Profile {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &obj); err != nil || obj == nil {
		return Profile{}
	}
	str := func(key string) string {
		var s string
		if raw, ok := obj[key]; ok && json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	name := str("name")
	if strings.TrimSpace(cleanLine(name, maxName)) == "" {
		name = str("display_name")
	}
	if strings.TrimSpace(cleanLine(name, maxName)) == "" {
		name = str("displayName")
	}
	var bot bool
	if raw, ok := obj["bot"]; ok {
		_ = json.Unmarshal(raw, &bot) // only a JSON true makes a bot
	}
	agent, _, _ := nostr.ReadAgent(content)
	for _, f := range []*string{&agent.Model, &agent.Provider, &agent.Harness, &agent.Version} {
		*f = strings.TrimSpace(cleanLine(*f, nostr.MaxAgentField))
	}
	return Profile{
		Agent:   agent,
		Name:    strings.TrimSpace(cleanLine(name, maxName)),
		About:   strings.TrimSpace(cleanText(str("about"), maxAbout)),
		Picture: httpsURL(str("picture")),
		Website: httpsURL(str("website")),
		Bot:     bot,
	}
}

// httpsURL returns s if it is an absolute https URL with a host and no
// credentials, else "". Everything else (javascript:, data:, relative, a
// URL hiding a user:password@) is dropped rather than rewritten.
func httpsURL(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxURL || !utf8.ValidString(s) {
		return ""
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || isInvisible(r) {
			return ""
		}
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Opaque != "" {
		return ""
	}
	return u.String()
}

// isInvisible reports characters that can disguise text: bidi overrides and
// isolates, and other format characters (zero-width and the like).
func isInvisible(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return unicode.Is(unicode.Cf, r) && r != 0x200d // keep ZWJ: emoji sequences need it
}

// clean returns s as valid UTF-8 without control or invisible characters,
// cut to at most n runes (with an ellipsis). keepNewlines keeps \n for
// multi-line text such as a profile's about.
func clean(s string, n int, keepNewlines bool) string {
	var b strings.Builder
	count := 0
	// range yields U+FFFD for each invalid byte, so the result is valid
	// UTF-8 whatever s holds.
	for _, r := range s {
		switch {
		case r == '\n' && keepNewlines:
		case r == '\t' || r == '\n' || r == '\r':
			r = ' '
		case unicode.IsControl(r), isInvisible(r), r == 0x2028, r == 0x2029:
			continue
		}
		if count == n {
			b.WriteRune('…')
			break
		}
		b.WriteRune(r)
		count++
	}
	return b.String()
}

// cleanLine is clean for one-line text (names, move strings, reasons).
func cleanLine(s string, n int) string { return clean(s, n, false) }

// cleanText is clean for multi-line text.
func cleanText(s string, n int) string { return clean(s, n, true) }
