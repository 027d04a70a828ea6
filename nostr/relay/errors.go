package relay

import "vesper/nostr/relay/internal/wire"

// Reasons passed to Config.OnReject (and reconcile.Options.OnReject) for
// events a relay sent that are never delivered.
const (
	RejectMalformed    = wire.RejectMalformed    // not a well-formed event (PROTOCOL.md section 1)
	RejectBadID        = wire.RejectBadID        // id is not the hash of the event
	RejectBadSignature = wire.RejectBadSignature // BIP-340 signature does not check
	RejectUnrequested  = wire.RejectUnrequested  // matches none of the subscription's filters
	RejectOversized    = wire.RejectOversized    // a message over Config.MaxMessageSize, dropped unread
)

// Errors a session, a query or a publication can end with; errors.Is
// tells them (a relay's refusal is a *ClosedError, or reconcile's
// *NegError, that Is the refusal its reason's prefix names).
var (
	ErrAuthRequired = wire.ErrAuthRequired
	// ErrAuthNoKey is ErrAuthRequired when there is no key to answer with.
	ErrAuthNoKey   = wire.ErrAuthNoKey
	ErrRateLimited = wire.ErrRateLimited
	// ErrRestricted is a refusal that authenticating does not lift.
	ErrRestricted = wire.ErrRestricted
	ErrClosed     = wire.ErrClosed
	ErrNoEOSE     = wire.ErrNoEOSE
	// ErrBudget ends a session whose backfill used its page budget.
	ErrBudget = wire.ErrBudget
)

// ClosedError is a relay's CLOSED for a subscription.
type ClosedError = wire.ClosedError

// Defaults of Config.MaxMessageSize, Config.MaxFrameSize and
// Config.QueueBytes (see wire for why these sizes).
const (
	DefaultMaxMessageSize = wire.DefaultMaxMessageSize
	DefaultMaxFrameSize   = wire.DefaultMaxFrameSize
	DefaultQueueBytes     = wire.DefaultQueueBytes
)
