package sim

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Report is what a run did and found (`vesper sim --json` prints it).
type Report struct {
	OK       bool              `json:"ok"`
	Failures []string          `json:"failures"`
	Dir      string            `json:"dir"`
	Seed     uint64            `json:"seed"`
	Agents   int               `json:"agents"`
	Matches  int               `json:"matches"`
	Events   int               `json:"events"`
	History  int               `json:"history_deliveries"`
	Live     int               `json:"live_deliveries"`
	Forged   int               `json:"forged_events"`
	Plans    map[string]int    `json:"plans"`
	Statuses map[string]int    `json:"statuses"`
	FinalBy  map[string]int    `json:"final_by"`
	Ignored  int               `json:"ignored_events"`
	Kills    int               `json:"kills"`
	Starts   int               `json:"daemon_starts"`
	Daemon   map[string]int    `json:"daemon_events"`
	Relays   []MemberStats     `json:"relays"`
	Checked  int               `json:"matches_checked"`
	Site     string            `json:"site"`
	Notes    []string          `json:"daemon_events_ignored"`
	Timings  map[string]string `json:"timings"`
}

func (r *Report) fail(format string, a ...any) {
	r.Failures = append(r.Failures, fmt.Sprintf(format, a...))
}

func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "season: seed %d, %d agents, %d matches, %d events (%d history deliveries, %d live, %d forged)\n",
		r.Seed, r.Agents, r.Matches, r.Events, r.History, r.Live, r.Forged)
	fmt.Fprintf(w, "plans: %s\n", fmtCounts(r.Plans))
	fmt.Fprintf(w, "folded: %s; final by %s; %d events ignored by the fold\n", fmtCounts(r.Statuses), fmtCounts(r.FinalBy), r.Ignored)
	fmt.Fprintf(w, "daemon: started %d times, killed %d times with SIGKILL; published %s\n", r.Starts, r.Kills, fmtCounts(r.Daemon))
	for _, m := range r.Relays {
		fmt.Fprintf(w, "relay %-5s %6d events, down %d times, proxy: %d connections, %d dropped, %d events doubled, %d garbage frames\n",
			m.Name, m.Events, m.Downs, m.Proxy.Conns, m.Proxy.Drops, m.Proxy.Duplicated, m.Proxy.Garbage)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: the fold ignores the daemon's %s\n", n)
	}
	fmt.Fprintf(w, "site: %s\n", r.Site)
	keys := make([]string, 0, len(r.Timings))
	for k := range r.Timings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "time %s: %s\n", k, r.Timings[k])
	}
	if r.OK {
		fmt.Fprintf(w, "OK: %d matches, the daemon's summaries equal the offline fold of the relays' events\n", r.Checked)
		return
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "FAIL: %s\n", f)
	}
}

func fmtCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		name := k
		if name == "" {
			name = "-"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
