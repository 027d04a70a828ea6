package main

import (
	"testing"

	"github.com/urfave/cli/v2"
)

// TestAllowPrivateOnEveryRelaysCommand: every command that dials relays
// may dial addresses strangers named (issue 30, item 5), so each must take
// the operator's --allow-private-relays; a command added later without it
// fails here.
func TestAllowPrivateOnEveryRelaysCommand(t *testing.T) {
	seen := 0
	for _, cmd := range newApp().Commands {
		if !hasFlag(cmd, "relays") {
			continue
		}
		seen++
		if !hasFlag(cmd, allowPrivateName) {
			t.Errorf("vesper %s takes --relays but not --%s", cmd.Name, allowPrivateName)
		}
	}
	for _, name := range []string{"daemon", "mcp", "status", "accept", "sync"} {
		if cmd := findCommand(name); cmd == nil || !hasFlag(cmd, allowPrivateName) {
			t.Errorf("vesper %s lacks --%s", name, allowPrivateName)
		}
	}
	if seen == 0 {
		t.Fatal("no command takes --relays")
	}
}

func findCommand(name string) *cli.Command {
	for _, cmd := range newApp().Commands {
		if cmd.Name == name {
			return cmd
		}
	}
	return nil
}

// TestAllowPrivateReachesSeat: the flag, or its environment variable, ends
// in the seat's config; without either the seat refuses private addresses.
// Nothing infers it, not even a loopback --relays.
func TestAllowPrivateReachesSeat(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  string
		want bool
	}{
		{"default", nil, "", false},
		{"local --relays infer nothing", []string{"--relays", "ws://127.0.0.1:7447"}, "", false},
		{"flag", []string{"--allow-private-relays"}, "", true},
		{"env", nil, "true", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("VESPER_ALLOW_PRIVATE_RELAYS", tc.env)
			got := seatAllowPrivate(t, tc.args)
			if got != tc.want {
				t.Errorf("seat.AllowPrivateRelays = %v, want %v", got, tc.want)
			}
		})
	}
}

func seatAllowPrivate(t *testing.T, args []string) bool {
	t.Helper()
	var got bool
	cmd := &cli.Command{Name: "probe", Flags: agentFlags(), Action: func(c *cli.Context) error {
		s, err := newSeat(c, false)
		if err != nil {
			return err
		}
		got = s.AllowPrivateRelays
		return nil
	}}
	app := &cli.App{Commands: withAllowPrivate([]*cli.Command{cmd})}
	if err := app.Run(append([]string{"vesper", "probe"}, args...)); err != nil {
		t.Fatal(err)
	}
	return got
}
