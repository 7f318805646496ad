package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// shown returns s, a lock name, owner id, key or channel, as the text
// output prints it: as it is when it is valid UTF-8 whose every character
// is printable and none a space, else quoted as a Go string ("a\nb",
// "\xff"), so that no name breaks a table's line or column, sends the
// terminal a control sequence, or reads as another name. A string that
// starts with a double quote is quoted too, so that a quoted string never
// passes for one printed as it is.
func shown(s string) string {
	if !utf8.ValidString(s) || strings.HasPrefix(s, `"`) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if r == ' ' || !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// lockName returns the lock name that arg, a command's NAME, gives: arg
// itself, or, when it starts with a double quote, the Go string it quotes,
// as shown prints a name: so that every name printed can be given back,
// one with a byte that no argument can hold (NUL) or that a shell makes
// hard to type included.
func lockName(arg string) (string, error) {
	name := arg
	if strings.HasPrefix(arg, `"`) {
		var err error
		if name, err = strconv.Unquote(arg); err != nil {
			return "", usageError{fmt.Sprintf("NAME %q starts with a double quote, so it must be a Go string literal (a name that starts with a double quote is given quoted): %v", arg, err)}
		}
	}
	if name == "" {
		return "", usageError{"NAME must not be empty: no lock has the empty name"}
	}
	return name, nil
}

// oneLine returns s, a line of prose that may quote names (an anomaly),
// with every byte that is not valid UTF-8 and every character that is not
// printable escaped as in a Go string (\n, \x1b, \xff), so that it prints
// as one line and sends the terminal no control sequence.
func oneLine(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x` + strconv.FormatInt(int64(s[0])|0x100, 16)[1:])
		case r != ' ' && !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}
