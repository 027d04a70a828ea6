package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/daemon"
	"vesper/match"
	"vesper/nostr"
)

// defaultRelays are well-known public relays, used when --relays and
// VESPER_RELAYS are both unset.
var defaultRelays = []string{"wss://relay.damus.io", "wss://nos.lol", "wss://relay.nostr.band"}

func relaysFlag() cli.Flag {
	return &cli.StringFlag{Name: "relays", EnvVars: []string{"VESPER_RELAYS"},
		Usage: "comma-separated relay URLs (default: " + strings.Join(defaultRelays, ",") + ")"}
}

// allowPrivateFlag is the operator's explicit permission for vesper to dial
// private, loopback and link-local addresses that came from someone else
// (players' NIP-65 relay lists, relay hints in a shared nevent). Without it
// such dials are refused (internal/netguard). The --relays ones are always
// dialed as written: the operator chose them. It is never inferred from a
// configured relay being local, since that setup is the one a stranger's
// list would otherwise turn against the operator's own services.
func allowPrivateFlag() cli.Flag {
	return &cli.BoolFlag{Name: allowPrivateName, EnvVars: []string{"VESPER_ALLOW_PRIVATE_RELAYS"},
		Usage: "let relays named by others (players' relay lists, hints) be private, loopback or link-local addresses; the --relays ones are always allowed"}
}

const allowPrivateName = "allow-private-relays"

// withAllowPrivate gives every command that takes --relays the
// --allow-private-relays flag too: each of them may dial addresses that
// strangers named, so none may lack the operator's say.
func withAllowPrivate(cmds []*cli.Command) []*cli.Command {
	for _, cmd := range cmds {
		if hasFlag(cmd, "relays") && !hasFlag(cmd, allowPrivateName) {
			cmd.Flags = append(cmd.Flags, allowPrivateFlag())
		}
	}
	return cmds
}

func hasFlag(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// allowPrivate reads --allow-private-relays (false where a command lacks it).
func allowPrivate(c *cli.Context) bool {
	return c.Value(allowPrivateName) != nil && c.Bool(allowPrivateName)
}

func dataFlag() cli.Flag {
	return &cli.StringFlag{Name: "data", EnvVars: []string{"VESPER_DATA"}, Value: "vesper-data",
		Usage: "data directory (the SQLite store lives in DIR/vesper.db)"}
}

func keyFlag() cli.Flag {
	return &cli.StringFlag{Name: "key", EnvVars: []string{"VESPER_KEY_FILE"},
		Usage: "file holding one secret key (nsec1... or 64 hex); VESPER_NSEC may hold the key itself"}
}

func jsonFlag() cli.Flag {
	return &cli.BoolFlag{Name: "json", Usage: "print one JSON object (errors as {\"error\":...,\"code\":...})"}
}

func relayList(c *cli.Context) []string {
	v := c.String("relays")
	if v == "" {
		return defaultRelays
	}
	var out []string
	for _, r := range strings.Split(v, ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}

func dbPath(c *cli.Context) string { return filepath.Join(c.String("data"), "vesper.db") }

// loadKey reads the key from --key, else VESPER_NSEC. required=false lets a
// daemon run without a key (it then only verifies). Errors never quote it.
func loadKey(c *cli.Context, required bool) (nostr.SecretKey, error) {
	if path := c.String("key"); path != "" {
		var warn io.Writer = os.Stderr
		if c.App != nil && c.App.ErrWriter != nil {
			warn = c.App.ErrWriter
		}
		k, err := readKeyFile(path, warn)
		if err != nil {
			if os.IsNotExist(err) {
				return k, fail(exitKey, "key file %s does not exist (create one with: vesper keygen --out %s)", path, path)
			}
			if err == nostr.ErrBadKey {
				return k, fail(exitKey, "key file %s does not hold a secret key (nsec1... or 64 hex digits)", path)
			}
			if err == errKeyFileSize {
				return k, fail(exitKey, "key file %s is larger than %d bytes: it cannot be a key file (nsec1... or 64 hex digits)", path, maxKeyFile)
			}
			return k, fail(exitKey, "cannot read key file %s: %v", path, unwrapPath(err))
		}
		return k, nil
	}
	if v := os.Getenv("VESPER_NSEC"); v != "" {
		k, err := nostr.ParseSecretKey(v)
		if err != nil {
			return k, fail(exitKey, "VESPER_NSEC does not hold a secret key (nsec1... or 64 hex digits)")
		}
		return k, nil
	}
	if required {
		return nostr.SecretKey{}, fail(exitKey, "no key: pass --key FILE, or set VESPER_KEY_FILE or VESPER_NSEC (vesper keygen makes one)")
	}
	return nostr.SecretKey{}, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// limitFlags are the daemon's (and `arbiter --once`'s) limit flags.
func limitFlags() []cli.Flag {
	d := daemon.DefaultLimits()
	return []cli.Flag{
		&cli.IntFlag{Name: "quota-open-challenges", Value: d.OpenPerAuthor, Usage: "open challenges (last " + match.Span(match.ChallengeExpiry) + ", not accepted) kept per author; more are dropped (0: no quota)"},
		&cli.IntFlag{Name: "quota-match-events", Value: d.EventsPerAuthor, Usage: "events kept per author per match; more are dropped (0: no quota)"},
		&cli.IntFlag{Name: "quota-relay-challenges", Value: d.RelayChallenges, Usage: "new challenges stored per relay per hour; more are dropped (0: no quota)"},
		&cli.IntFlag{Name: "held-challenges", Value: d.HeldChallenges, Usage: "challenges over a relay's hourly budget kept in the store and retried (when another key answers one, and each new hour); the newest are kept (0: no bound)"},
		&cli.IntFlag{Name: "records-per-hour", Value: d.RecordsPerHour, Usage: "NIP-64 game records the house signs per hour, only for matches of listed players; the rest wait for a later hour (0: no bound)"},
		&cli.IntFlag{Name: "rulings-per-hour", Value: d.RulingsPerHour, Usage: "fallback rulings the house signs per hour; the rest wait for a later hour (0: no bound)"},
		&cli.IntFlag{Name: "max-duties", Value: d.DutiesPerPass, Usage: "new duties (accepts, moves, results, claims, rulings) signed per pass; the rest wait for the next pass"},
		&cli.IntFlag{Name: "publish-parallel", Value: d.PublishParallel, Usage: "outbox events published at once (in the order recorded within a match)"},
		&cli.DurationFlag{Name: "max-skew", Value: time.Duration(d.MaxSkew) * time.Second, Usage: "how far ahead of this clock a challenge may be stamped before the house defers it, and the most the house stamps its own events ahead"},
		&cli.IntFlag{Name: "summary-ignored", Value: d.SummaryIgnored, Usage: "ignored events listed in full in each stored summary (the rest are counted; vesper verify always lists all)"},
		&cli.DurationFlag{Name: "dormant-after", Value: time.Duration(d.DormantAfter) * time.Second, Usage: "a game whose clock ran out this long ago, with no event since, is dormant: not kept in memory nor folded at start until an event of it comes (0: never)"},
	}
}

// limitsOf reads the limit flags the command defines; the others keep
// their defaults.
func limitsOf(c *cli.Context) daemon.Limits {
	l := daemon.DefaultLimits()
	// Value is nil for a flag the command does not define: its default stays.
	defined := func(name string) bool { return c.Value(name) != nil }
	ints := []struct {
		name string
		dst  *int
	}{
		{"quota-open-challenges", &l.OpenPerAuthor}, {"quota-match-events", &l.EventsPerAuthor},
		{"quota-relay-challenges", &l.RelayChallenges}, {"max-duties", &l.DutiesPerPass},
		{"held-challenges", &l.HeldChallenges}, {"records-per-hour", &l.RecordsPerHour},
		{"rulings-per-hour", &l.RulingsPerHour},
		{"publish-parallel", &l.PublishParallel}, {"summary-ignored", &l.SummaryIgnored},
	}
	for _, f := range ints {
		if defined(f.name) {
			*f.dst = c.Int(f.name)
		}
	}
	if defined("max-skew") {
		l.MaxSkew = int64(c.Duration("max-skew") / time.Second)
	}
	if defined("dormant-after") {
		l.DormantAfter = int64(c.Duration("dormant-after") / time.Second)
	}
	return l
}

// maxKeyFile bounds what is read of a key file: a key is 63 or 64
// characters, and --key /dev/zero must fail at once, not fill the memory.
const maxKeyFile = 4096

var errKeyFileSize = errors.New("key file too large")

// readKeyFile reads one secret key from path, at most maxKeyFile bytes,
// and warns on warn when every user of the machine may read the file.
// Neither the error nor the warning ever quotes the file's content.
func readKeyFile(path string, warn io.Writer) (nostr.SecretKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nostr.SecretKey{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o004 != 0 && warn != nil {
		fmt.Fprintf(warn, "vesper: warning: key file %s is readable by every user (mode %04o); run: chmod 600 %s\n",
			path, fi.Mode().Perm(), path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nostr.SecretKey{}, err
	}
	if len(b) > maxKeyFile {
		return nostr.SecretKey{}, errKeyFileSize
	}
	return nostr.ParseSecretKey(string(b))
}
