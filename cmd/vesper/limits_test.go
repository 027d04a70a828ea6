package main

import (
	"testing"

	"github.com/urfave/cli/v2"

	"vesper/daemon"
)

// The limit flags of issue 30 reach daemon.Limits; those not given keep
// their defaults.
func TestLimitFlags(t *testing.T) {
	var got daemon.Limits
	app := &cli.App{Flags: limitFlags(), Action: func(c *cli.Context) error {
		got = limitsOf(c)
		return nil
	}}
	if err := app.Run([]string{"vesper", "--held-challenges", "7", "--records-per-hour", "8", "--rulings-per-hour", "9"}); err != nil {
		t.Fatal(err)
	}
	want := daemon.DefaultLimits()
	want.HeldChallenges, want.RecordsPerHour, want.RulingsPerHour = 7, 8, 9
	if got != want {
		t.Errorf("limits %+v, want %+v", got, want)
	}
}
