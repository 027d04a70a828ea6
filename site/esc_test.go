package site

import (
	"html/template"
	"strings"
	"testing"
)

// TestEscIsTemplateEscaping: the rows written in Go (eventsTable) escape
// exactly as html/template does in text and in a quoted attribute, so
// moving them out of the template changed no byte and escapes all that
// the template escaped.
func TestEscIsTemplateEscaping(t *testing.T) {
	tpl := template.Must(template.New("x").Parse(`{{.}}|<span title="{{.}}">`))
	var all strings.Builder
	for c := range 128 {
		all.WriteByte(byte(c))
	}
	cases := []string{all.String(), "Nf3+ e8=Q#", `<script>alert("x")</script>`, "a'b\"c&d", "\x00nul",
		"é ✓ 😀 \u2028 \u202e rtl", "\xff\xfe not UTF-8", "&amp; already", "O-O-O+"}
	for _, s := range cases {
		var b strings.Builder
		if err := tpl.Execute(&b, s); err != nil {
			t.Fatal(err)
		}
		want := b.String()
		if got := esc(s) + `|<span title="` + esc(s) + `">`; got != want {
			t.Errorf("esc(%q):\n got %q\nwant %q", s, got, want)
		}
	}
}

// TestEventsTableEscapes: what a relay wrote reaches the events tables
// only escaped.
func TestEventsTableEscapes(t *testing.T) {
	row := eventRow{N: 1, ID: "ab", Anchor: `a"b`, Short: "ab", Kind: "kind 1", Who: "<who>", Created: "<date>",
		Use: "used", Ply: 1, Move: "Nf3+", Excerpt: `<img src=x onerror="alert(1)">`, Token: "t<"}
	shown := row
	shown.Ply, shown.Move = 0, "" // content is shown only where it is not already the move
	got := string(eventsTable([]eventRow{row, shown}))
	for _, bad := range []string{"<img", `"alert`, "t<", "Nf3+", `a"b`} {
		if strings.Contains(got, bad) {
			t.Errorf("events row holds %q unescaped: %s", bad, got)
		}
	}
	if !strings.Contains(got, `<a href="#ply-1">Nf3&#43;</a>`) || strings.Count(got, "&lt;img") != 1 {
		t.Errorf("the counted row does not link its move, or the uncounted row does not show its content: %s", got)
	}
	row.Ignored = "reason"
	got = string(ignoredTable([]eventRow{row}))
	if strings.Contains(got, "<img") || !strings.Contains(got, "&lt;img") || !strings.Contains(got, "<who>") {
		t.Errorf("ignored row: %s", got)
	}
}
