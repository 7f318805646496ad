package main

import (
	"errors"
	"testing"
)

func TestShown_prints_plain_strings_as_they_are_and_quotes_the_rest(t *testing.T) {
	for s, want := range map[string]string{
		"jobs:nightly": "jobs:nightly",
		"ünï©ødé":      "ünï©ødé",
		"}x{":          "}x{",
		"a b":          `"a b"`,
		"a\nb":         `"a\nb"`,
		"\x1b[2J":      `"\x1b[2J"`,
		"\xff":         `"\xff"`,
		`"x"`:          `"\"x\""`,
		`x"`:           `x"`,
	} {
		if got := shown(s); got != want {
			t.Errorf("shown(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestOneLine_escapes_what_is_not_printable_and_keeps_the_rest(t *testing.T) {
	for s, want := range map[string]string{
		`hold "a b" has no lease in lockkit:{x}:leases`: `hold "a b" has no lease in lockkit:{x}:leases`,
		"the hash lockkit:{a\nb} has no TTL":            `the hash lockkit:{a\nb} has no TTL`,
		"\x1b[2J\xff\t":                                 `\x1b[2J\xff\t`,
	} {
		if got := oneLine(s); got != want {
			t.Errorf("oneLine(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestLockName_unquotes_a_quoted_NAME_and_takes_any_other_as_it_is(t *testing.T) {
	for arg, want := range map[string]string{
		"jobs:nightly": "jobs:nightly",
		`a\nb`:         `a\nb`,
		`"a\nb"`:       "a\nb",
		`"\x00\xff"`:   "\x00\xff",
		`"\"quoted\""`: `"quoted"`,
		`x"`:           `x"`,
		`"a b"`:        "a b",
		"ünï©ødé \t{}": "ünï©ødé \t{}",
	} {
		if got, err := lockName(arg); got != want || err != nil {
			t.Errorf("lockName(%q) = %q, %v; want %q", arg, got, err, want)
		}
	}
	for _, arg := range []string{"", `""`, `"unterminated`, `"a"b"`} {
		if _, err := lockName(arg); !errors.As(err, new(usageError)) {
			t.Errorf("lockName(%q) = %v, want a usage error", arg, err)
		}
	}
}
