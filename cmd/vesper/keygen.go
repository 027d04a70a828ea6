package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"vesper/nostr"
)

func keygenCommand() *cli.Command {
	return &cli.Command{
		Name:  "keygen",
		Usage: "make a new secret key in a file; prints the public key",
		Flags: []cli.Flag{jsonFlag(), &cli.StringFlag{Name: "out", Usage: "write the key to FILE (mode 0600; never overwrites)"}},
		Action: func(c *cli.Context) error {
			path := c.String("out")
			if path == "" && c.Bool("json") {
				// The key is never printed, so without a file it would be lost.
				return fail(exitUsage, "keygen --json needs --out FILE: the secret key is never printed")
			}
			k := nostr.GenerateKey()
			if path != "" {
				if err := writeKeyFile(path, k); err != nil {
					return err
				}
			}
			if c.Bool("json") {
				return printJSON(map[string]string{"npub": nostr.Npub(k.PublicKey()), "pubkey": k.PublicKey(), "key_file": path})
			}
			printIdentity(os.Stdout, k)
			if path != "" {
				fmt.Printf("key written to %s (keep it secret)\n", path)
			} else {
				fmt.Println("no --out given: the key was not saved anywhere")
			}
			return nil
		},
	}
}

func writeKeyFile(path string, k nostr.SecretKey) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if os.IsExist(err) {
			return fail(exitKey, "%s already exists; refusing to overwrite a key", path)
		}
		return fail(exitKey, "cannot create %s: %v", path, unwrapPath(err))
	}
	if _, err := f.WriteString(k.Nsec() + "\n"); err != nil {
		f.Close()
		return fail(exitKey, "cannot write %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return fail(exitKey, "cannot write %s: %v", path, err)
	}
	return nil
}

func printIdentity(w io.Writer, k nostr.SecretKey) {
	fmt.Fprintf(w, "npub:   %s\npubkey: %s\n", nostr.Npub(k.PublicKey()), k.PublicKey())
}

func whoamiCommand() *cli.Command {
	return &cli.Command{
		Name:  "whoami",
		Usage: "print the public key of the configured key",
		Flags: []cli.Flag{keyFlag(), jsonFlag()},
		Action: func(c *cli.Context) error {
			k, err := loadKey(c, true)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return printJSON(map[string]string{"npub": nostr.Npub(k.PublicKey()), "pubkey": k.PublicKey()})
			}
			printIdentity(os.Stdout, k)
			return nil
		},
	}
}
