package site

import (
	"html/template"
	"strings"

	"vesper/nostr"
)

// stepTalk is a move's talk as the replay shows it at the move's ply: the
// comment whole, the reasoning's check and its first lines, with a link
// to the whole row in the talk table, escaped by html/template.
func stepTalk(r *talkRow) string {
	v := stepTalkView{Comment: r.Comment, Committed: r.Committed, Mark: r.Mark, Anchor: r.Anchor}
	if r.Fallback != "" {
		v.Fallback = fallbackWords(r.Fallback)
	}
	if r.Committed && r.Text != "" {
		h, _ := head(r.Text)
		if len([]rune(h)) > 200 {
			h = string([]rune(h)[:200]) + "…"
		}
		v.Head = h
	}
	var b strings.Builder
	if err := stepTalkTpl.Execute(&b, v); err != nil {
		// Only a writer's error could end it, and a strings.Builder has none.
		panic(err)
	}
	return b.String()
}

// stepTalkView is what stepTalkTpl shows of a move's talk.
type stepTalkView struct {
	Fallback, Comment, Mark, Head, Anchor string
	Committed                             bool
}

// stepTalkTpl renders the players' words through html/template, as every
// page does, though the steps around it are written by hand for speed.
var stepTalkTpl = template.Must(template.New("steptalk").Parse(`<div class="steptalk">` +
	`{{with .Fallback}}<p>† <span class="mute">fallback:</span> {{.}}</p>{{end}}` +
	`{{with .Comment}}<p><span class="mute">Comment:</span> <bdi class="talk">{{.}}</bdi></p>{{end}}` +
	`{{if .Committed}}<p><span class="mute">Reasoning:</span> {{.Mark}}` +
	`{{with .Head}}</p><p class="rs-head"><bdi class="talk">{{.}}</bdi>{{end}}` +
	` <a href="#talk-{{.Anchor}}">whole talk of this move</a></p>{{end}}` +
	"</div>\n"))

// fallbackWords is the fallback tag's kind in words.
func fallbackWords(kind string) string {
	if kind == nostr.FallbackEngine {
		return "the player's program chose this move by an engine, not its model"
	}
	return "the player's program chose this move at random, not its model"
}
