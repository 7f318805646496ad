package main

import (
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// unplainNames are lock names that text output cannot print as they are:
// a newline, a tab, a terminal escape, bytes that are not UTF-8, a space,
// a leading double quote.
var unplainNames = []string{"a\nb", "tab\there", "esc\x1b[31mred", "\xff\xfe", "a b", `"quoted"`}

// unplainOwner is an owner id with a newline.
const unplainOwner = "own\ner"

// wantOneLinePerRow fails the test when out, text output, holds a control
// character other than the newline ending each line, or has not n lines.
func wantOneLinePerRow(t *testing.T, what, out string, n int) {
	t.Helper()
	if strings.ContainsFunc(out, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }) {
		t.Errorf("%s printed a control character:\n%q", what, out)
	}
	if got := strings.Count(out, "\n"); got != n {
		t.Errorf("%s printed %d lines, want %d:\n%q", what, got, n, out)
	}
}

func TestTextOutput_quotes_names_and_owners_that_are_not_plain(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		for _, name := range unplainNames {
			redistest.MustLock(t, reentrant.New(f.lc, name, lockkit.WithOwner(unplainOwner)))
		}
		out := f.ok(t, "ls", "--prefix", f.prefix)
		wantOneLinePerRow(t, "ls", out, 1+len(unplainNames))
		for _, name := range unplainNames {
			if !strings.Contains(out, "\n"+strconv.Quote(name)+" ") {
				t.Errorf("ls printed\n%s\nwant a line for %q, quoted", out, name)
			}
		}
		if !strings.Contains(out, strconv.Quote(unplainOwner)+"(1)") {
			t.Errorf("ls printed\n%s\nwant the owner quoted", out)
		}

		for _, name := range unplainNames {
			out := f.ok(t, "show", "--prefix", f.prefix, shown(name))
			if !strings.HasPrefix(out, "lock         "+strconv.Quote(name)+"\nkey          "+shown(keys(f.prefix, name).Base)+"\n") {
				t.Errorf("show %q printed\n%s\nwant its name quoted, and its key as shown prints it", name, out)
			}
			if strings.ContainsFunc(out, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }) {
				t.Errorf("show %q printed a control character:\n%q", name, out)
			}
		}

		name := unplainNames[0]
		out = f.ok(t, "unlock", "--force", "--yes", "--prefix", f.prefix, name)
		wantOneLinePerRow(t, "unlock", out, 1)
		if !strings.Contains(out, "lock "+strconv.Quote(name)+" (held by "+strconv.Quote(unplainOwner)+"(1) ") {
			t.Errorf("unlock printed %q, want the name and owner quoted", out)
		}
	})
}

func TestWatch_text_quotes_a_name_that_is_not_plain(t *testing.T) {
	rc := redistest.ServerBackend.Client(t)
	lc, prefix := prefixed(t, rc)
	name := "w\n" + redistest.Unique(t)
	w := cliFor(t, rc).start(t, "watch", "--prefix", prefix, name)
	if line := w.next(t); !strings.Contains(line, " "+strconv.Quote(name)+": - free") {
		t.Fatalf("watch began with %q, want the name quoted", line)
	}
	m := reentrant.New(lc, name, lockkit.WithOwner(unplainOwner))
	redistest.MustLock(t, m)
	if line := w.next(t); !strings.Contains(line, "acquire    "+strconv.Quote(unplainOwner)+" exclusive") {
		t.Errorf("watch printed %q, want the acquire with its owner quoted", line)
	}
	redistest.MustUnlock(t, m)
	w.interrupt(t)
}
