package nostr

import (
	"fmt"
	"strconv"
)

func countTags(ev *Event, name string) (n int, withValue []string) {
	for _, t := range ev.Tags {
		if len(t) == 0 || t[0] != name {
			continue
		}
		n++
		if len(t) >= 2 {
			withValue = append(withValue, t[1])
		}
	}
	return n, withValue
}

// HasMatchTag reports whether any g tag names the match (section 2: the
// events of a match).
func HasMatchTag(ev *Event, match string) bool {
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == MatchTag && t[1] == match {
			return true
		}
	}
	return false
}

// MatchRefs returns every match id named by a g tag (an event may name
// several and then belongs to each, though it is valid in none).
func MatchRefs(ev *Event) []string {
	var out []string
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == MatchTag {
			out = append(out, t[1])
		}
	}
	return out
}

// SingleG checks that the event has exactly one tag named g (section 1).
func SingleG(ev *Event) error {
	n, _ := countTags(ev, MatchTag)
	if n != 1 {
		return &TagError{Tag: MatchTag, Token: "bad_g_tag", Reason: fmt.Sprintf("%d g tags", n)}
	}
	return nil
}

// Ply returns the move's ply: exactly one ply tag holding a decimal integer
// >= 1 without sign or leading zeros.
func Ply(ev *Event) (int, error) {
	n, vals := countTags(ev, PlyTag)
	if n != 1 {
		return 0, &TagError{Tag: PlyTag, Token: "bad_ply_tag", Reason: fmt.Sprintf("%d ply tags", n)}
	}
	v := ""
	if len(vals) == 1 {
		v = vals[0]
	}
	p, ok := ParsePly(v)
	if !ok {
		return 0, &TagError{Tag: PlyTag, Token: "bad_ply_tag", Reason: fmt.Sprintf("malformed ply %q", v)}
	}
	return p, nil
}

// ParsePly parses N of ["ply","N"].
func ParsePly(v string) (int, bool) {
	if v == "" || len(v) > 9 || v[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// ChallengeTags checks a challenge's tags: a t tag with the games topic and
// at most one p tag, which must have a value. It returns the invitee or "".
func ChallengeTags(ev *Event) (invitee string, err error) {
	topic := false
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == TopicTag && t[1] == GamesTopic {
			topic = true
		}
	}
	if !topic {
		return "", &TagError{Tag: TopicTag, Token: "bad_t_tag", Reason: "no t tag " + GamesTopic}
	}
	n, vals := countTags(ev, PubkeyTag)
	switch {
	case n > 1:
		return "", &TagError{Tag: PubkeyTag, Token: "bad_p_tag", Reason: "more than one p tag"}
	case n == 1 && len(vals) == 0:
		return "", &TagError{Tag: PubkeyTag, Token: "bad_p_tag", Reason: "p tag without a value"}
	case n == 1:
		return vals[0], nil
	}
	return "", nil
}

// NamesPubkey reports whether a p tag names pk (an accept's challenger).
func NamesPubkey(ev *Event, pk string) bool {
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == PubkeyTag && t[1] == pk {
			return true
		}
	}
	return false
}
