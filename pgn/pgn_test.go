package pgn

import (
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	got := Write([]Tag{{"White", `a "b" \ c` + "\n[Forged \"x\"]"}, {"Result", "1-0"}}, []string{"e4", "e5", "Qh5"}, Result(true, "first"))
	want := "[White \"a \\\"b\\\" \\\\ c [Forged \\\"x\\\"]\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 1-0\n"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if strings.Count(got, "\n[") != 1 {
		t.Fatal("a value forged a tag line")
	}
}

func TestWrapsAt79(t *testing.T) {
	var sans []string
	for range 60 {
		sans = append(sans, "Nf3")
	}
	for _, l := range strings.Split(Write(nil, sans, "*"), "\n") {
		if len(l) > 79 {
			t.Fatalf("line of %d columns: %q", len(l), l)
		}
	}
}

func TestResult(t *testing.T) {
	for _, c := range []struct {
		over   bool
		result string
		want   string
	}{{false, "first", "*"}, {true, "first", "1-0"}, {true, "second", "0-1"}, {true, "draw", "1/2-1/2"}} {
		if got := Result(c.over, c.result); got != c.want {
			t.Errorf("Result(%v, %q) = %q, want %q", c.over, c.result, got, c.want)
		}
	}
}
