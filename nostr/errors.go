package nostr

import "fmt"

// ParseError says why raw bytes are not a well-formed event (PROTOCOL.md
// section 1: such events are dropped silently before any match sees them).
type ParseError struct {
	Field  string // "id", "created_at", "tags", ... or "" for the whole event
	Reason string
}

func (e *ParseError) Error() string {
	if e.Field == "" {
		return "nostr: malformed event: " + e.Reason
	}
	return fmt.Sprintf("nostr: malformed event: %s: %s", e.Field, e.Reason)
}

// CheckError is a well-formed event whose id or signature is wrong.
type CheckError struct {
	ID     string
	Reason string // "id mismatch", "bad signature"
}

func (e *CheckError) Error() string {
	return fmt.Sprintf("nostr: event %s: %s", e.ID, e.Reason)
}

// TagError says why an event's tags do not meet the protocol (section 1).
// Token is the machine token used in the ignored list ("bad_g_tag", ...).
type TagError struct {
	Tag    string
	Token  string
	Reason string
}

func (e *TagError) Error() string {
	return fmt.Sprintf("nostr: tag %q: %s", e.Tag, e.Reason)
}

// ResultError says why a result JSON is malformed.
type ResultError struct {
	Reason string
}

func (e *ResultError) Error() string { return "nostr: malformed result: " + e.Reason }
