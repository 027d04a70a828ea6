package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"vesper/nostr/relay"
	"vesper/nostr/relay/reconcile"
)

// relaysCommand is a diagnostic: what each relay says of itself (NIP-11),
// whether it answers, and how vesper's relay client adapts to it.
func relaysCommand() *cli.Command {
	return &cli.Command{
		Name:  "relays",
		Usage: "show what relays say of themselves (NIP-11) and how vesper adapts to them",
		Description: "For each relay of --relays: whether it served a NIP-11 document and answered a websocket\n" +
			"query, its name, software and version, its supported NIPs (nip77: it offers negentropy,\n" +
			"which `vesper sync` uses), each limitation (max_limit, max_filters, max_subscriptions,\n" +
			"max_message_length, auth_required, restricted_writes, payment_required, created_at limits,\n" +
			"...; 0 is not announced), and what vesper does with them (client: page_limit,\n" +
			"filters_per_req, max_req_bytes, live_subscriptions, auth_first, writes: \"yes\" or why a\n" +
			"publication would skip the relay). --json prints {\"relays\": [...]}, one object per relay.\n" +
			"--nip77-check also reads each relay's newest game events (up to 1,000, or two pages) by REQ\n" +
			"and by NIP-77, as every sync does before it trusts NIP-77: \"trusted\" when the NIP-77 view\n" +
			"holds every event the REQs read (or is cut where the sync sees it), else why not (the sync\n" +
			"then pages that relay).\n" +
			"Exit status 4 when no relay answered at all.",
		ArgsUsage: " ",
		Flags: []cli.Flag{relaysFlag(), keyFlag(), jsonFlag(), relayTimeoutFlag(),
			&cli.BoolFlag{Name: "nip77-check", Usage: "compare each relay's NIP-77 view with its REQ view, as a sync does"}},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			key, err := loadKey(c, false)
			if err != nil {
				return err
			}
			infos := relay.Inspect(c.Context, relayList(c), relay.InspectOptions{Timeout: c.Duration("timeout"), Key: key})
			out := make([]checkedRelay, len(infos))
			for i, ri := range infos {
				out[i].RelayInfo = ri
				if c.Bool("nip77-check") && ri.Websocket {
					res, err := reconcile.Check(c.Context, ri.URL, key, c.Duration("timeout"))
					if err != nil {
						res.Note = err.Error()
					}
					out[i].Check = &res
				}
			}
			if c.Bool("json") {
				printJSON(map[string]any{"relays": out})
			} else {
				for i, ri := range out {
					if i > 0 {
						fmt.Println()
					}
					printRelayInfo(os.Stdout, ri.RelayInfo)
					if ck := ri.Check; ck != nil {
						switch {
						case !ck.Offered:
							fmt.Printf("  nip77 check not offered\n")
						case ck.Trusted:
							fmt.Printf("  nip77 check trusted (%s)\n", ck.Note)
						default:
							fmt.Printf("  nip77 check not trusted: %s (a sync pages this relay)\n", ck.Note)
						}
					}
				}
			}
			for _, ri := range infos {
				if ri.NIP11 || ri.Websocket {
					return nil
				}
			}
			return &exitError{code: exitRelays} // printed above; no second message
		},
	}
}

// checkedRelay is a relay's line of `vesper relays`, with the NIP-77
// check when asked for.
type checkedRelay struct {
	relay.RelayInfo
	Check *reconcile.CheckResult `json:"nip77_check,omitempty"`
}

func printRelayInfo(w io.Writer, ri relay.RelayInfo) {
	yes := map[bool]string{true: "yes", false: "no"}
	fmt.Fprintln(w, ri.URL)
	ws := yes[ri.Websocket]
	if ri.Websocket {
		ws += fmt.Sprintf(" (%s, %d ms)", ri.Probe, ri.LatencyMS)
	} else {
		ws += " (" + ri.WebsocketError + ")"
	}
	nip11 := yes[ri.NIP11]
	if !ri.NIP11 && ri.NIP11Error != "" {
		nip11 += " (" + ri.NIP11Error + ")"
	}
	fmt.Fprintf(w, "  answered    NIP-11 %s; websocket %s\n", nip11, ws)
	if !ri.NIP11 {
		return
	}
	if ri.Name != "" {
		fmt.Fprintf(w, "  name        %s\n", ri.Name)
	}
	if ri.Software != "" || ri.Version != "" {
		fmt.Fprintf(w, "  software    %s\n", strings.TrimSpace(ri.Software+" "+ri.Version))
	}
	nips := make([]string, len(ri.SupportedNIPs))
	for i, n := range ri.SupportedNIPs {
		nips[i] = strconv.Itoa(n)
	}
	fmt.Fprintf(w, "  nips        %s (NIP-77 %s, NIP-42 %s)\n", strings.Join(nips, " "),
		map[bool]string{true: "offered", false: "not offered"}[ri.NIP77], map[bool]string{true: "listed", false: "not listed"}[ri.NIP42])
	l := ri.Limitation
	num := func(n int64) string {
		if n == 0 {
			return "-"
		}
		return strconv.FormatInt(n, 10)
	}
	fmt.Fprintf(w, "  limitation  max_limit %s, default_limit %s, max_filters %s, max_subscriptions %s, max_message_length %s\n",
		num(int64(l.MaxLimit)), num(int64(l.DefaultLimit)), num(int64(l.MaxFilters)), num(int64(l.MaxSubscriptions)), num(int64(l.MaxMessageLength)))
	fmt.Fprintf(w, "              max_event_tags %s, max_content_length %s, min_pow_difficulty %s, created_at_lower_limit %s, created_at_upper_limit %s\n",
		num(int64(l.MaxEventTags)), num(int64(l.MaxContentLength)), num(int64(l.MinPowDifficulty)), num(l.CreatedAtLowerLimit), num(l.CreatedAtUpperLimit))
	fmt.Fprintf(w, "              auth_required %s, restricted_writes %s, payment_required %s\n",
		yes[l.AuthRequired], yes[l.RestrictedWrites], yes[l.PaymentRequired])
	a := ri.Client
	last := ""
	if a.ShortIsLast {
		last = " (a short page is the last)"
	}
	fmt.Fprintf(w, "  vesper      pages of %d%s, %d filters per REQ, REQs up to %d bytes, %d live subscriptions, AUTH first %s, writes %s\n",
		a.PageLimit, last, a.FiltersPer, a.REQBytes, a.LiveSubs, yes[a.AuthFirst], a.Writes)
}
