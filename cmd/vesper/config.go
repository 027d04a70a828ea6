package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"vesper/nostr"
)

// defaultRelays are well-known public relays, used when --relays and
// VESPER_RELAYS are both unset.
var defaultRelays = []string{"wss://relay.damus.io", "wss://nos.lol", "wss://relay.nostr.band"}

func relaysFlag() cli.Flag {
	return &cli.StringFlag{Name: "relays", EnvVars: []string{"VESPER_RELAYS"},
		Usage: "comma-separated relay URLs (default: " + strings.Join(defaultRelays, ",") + ")"}
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
		k, err := nostr.ReadSecretKeyFile(path)
		if err != nil {
			if os.IsNotExist(err) {
				return k, fail(exitKey, "key file %s does not exist (create one with: vesper keygen --out %s)", path, path)
			}
			if err == nostr.ErrBadKey {
				return k, fail(exitKey, "key file %s does not hold a secret key (nsec1... or 64 hex digits)", path)
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
