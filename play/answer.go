package play

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Forms of an answer ParseAnswer read, kept in the record (Answer.Form):
// the arenas' contract is "think first, then a JSON block", and Kaggle's
// harness reads a move out of prose, so strict JSON is one form of four.
const (
	FormJSON   = "json"         // the whole output is one JSON object
	FormInText = "json_in_text" // the last JSON object among other text
	FormFenced = "fenced"       // a fenced code block: a JSON object or a move
	FormBare   = "bare"         // a move alone, or alone on the last line after a label ("Move: e4")
)

// maxBraces bounds the JSON objects tried in one answer: a pathological
// output of many unclosed braces costs at most this many scans.
const maxBraces = 1000

// moveLike is what a bare move looks like: UCI, SAN, castling, a gomoku
// point or "resign". The fold, not this pattern, says whether it is legal.
var moveLike = regexp.MustCompile(`^(?:[a-h][1-8][a-h][1-8][qrbnQRBN]?|[KQRBNP]?[a-h]?[1-8]?x?[a-h][1-8](?:=?[QRBNqrbn])?[+#!?]*|[O0]-[O0](?:-[O0])?[+#]?|[a-o](?:1[0-5]|[1-9])|resign)$`)

// ParseAnswer reads an agent's stdout: a JSON object (alone, the last one
// among prose, or in a fenced block), or a bare move. It returns the
// answer, with Answer.Form saying which form was read, or the kind of
// failure and why.
func ParseAnswer(out []byte) (Answer, string, string) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return Answer{}, KindEmpty, "no output"
	}
	var whole json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(out))
	if dec.Decode(&whole) == nil && !dec.More() && out[0] == '{' {
		return checkAnswer(whole, FormJSON)
	}
	fences := fencedBlocks(out)
	if obj, at, ok := lastObject(out); ok {
		form := FormInText
		for _, f := range fences {
			if at >= f[0] && at < f[1] {
				form = FormFenced
			}
		}
		return checkAnswer(obj, form)
	}
	if len(fences) > 0 {
		f := fences[len(fences)-1]
		if mv, ok := bareMove(string(out[f[0]:f[1]])); ok {
			return Answer{Move: mv, Form: FormFenced}, "", ""
		}
	}
	lines := strings.Split(string(out), "\n")
	if mv, ok := bareMove(lines[len(lines)-1]); ok {
		return Answer{Move: mv, Form: FormBare}, "", ""
	}
	return Answer{}, KindUnparsable, `no JSON object, fenced block or bare move: answer {"move": "..."}`
}

// checkAnswer decodes one JSON object as an answer.
func checkAnswer(raw []byte, form string) (Answer, string, string) {
	var a Answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return Answer{}, KindUnparsable, "not an answer object: " + shorten(err.Error())
	}
	a.Form = form
	a.Move = strings.TrimSpace(a.Move)
	if a.Move == "" && !a.AcceptOffer {
		return Answer{}, KindEmpty, `the answer names no move ("move") and accepts no offer`
	}
	if a.Offer != "" && a.Offer != "draw" {
		return Answer{}, KindUnparsable, fmt.Sprintf("offer must be \"draw\", not %q", a.Offer)
	}
	return a, "", ""
}

// lastObject is the last top-level JSON object in out that names a move
// or accepts an offer (objects nested in another are part of it), with
// its offset.
func lastObject(out []byte) (obj []byte, at int, ok bool) {
	tries := 0
	for i := 0; i < len(out) && tries < maxBraces; {
		j := bytes.IndexByte(out[i:], '{')
		if j < 0 {
			break
		}
		i += j
		tries++
		var raw json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(out[i:]))
		if dec.Decode(&raw) != nil {
			i++
			continue
		}
		var probe map[string]json.RawMessage
		if json.Unmarshal(raw, &probe) == nil {
			_, mv := probe["move"]
			_, acc := probe["accept_offer"]
			if mv || acc {
				obj, at, ok = raw, i, true
			}
		}
		i += int(dec.InputOffset())
	}
	return obj, at, ok
}

// fencedBlocks are the [start, end) offsets of the contents of the
// ``` blocks of out (a block left open runs to the end).
func fencedBlocks(out []byte) [][2]int {
	var blocks [][2]int
	s := string(out)
	for i := 0; ; {
		open := strings.Index(s[i:], "```")
		if open < 0 {
			return blocks
		}
		start := i + open + 3
		// The info string ("json") ends the opening line.
		if nl := strings.IndexByte(s[start:], '\n'); nl >= 0 {
			start += nl + 1
		} else {
			return blocks
		}
		end := strings.Index(s[start:], "```")
		if end < 0 {
			return append(blocks, [2]int{start, len(s)})
		}
		blocks = append(blocks, [2]int{start, start + end})
		i = start + end + 3
	}
}

// bareMove reads a move alone on a line: markup and a label ending in a
// colon ("**Move:** e4") are dropped, as is a final full stop.
func bareMove(line string) (string, bool) {
	line = strings.TrimSpace(line)
	if i := strings.LastIndexByte(line, ':'); i >= 0 {
		line = line[i+1:]
	}
	line = strings.Trim(line, " \t*`_\"'")
	line = strings.TrimSuffix(line, ".")
	if !moveLike.MatchString(line) {
		return "", false
	}
	return line, true
}
