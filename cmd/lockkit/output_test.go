package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// What the tests use to read the command's output.

// matches reports whether s matches the regular expression re.
func matches(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// holderLines returns the holders as "owner mode count token" lines, sorted.
func holderLines(hs []Holder) []string {
	var out []string
	for _, h := range hs {
		out = append(out, strings.Join([]string{h.Owner, h.Mode, itoa(h.Count), itoa(h.Token)}, " "))
	}
	slices.Sort(out)
	return out
}

// itoa formats n in decimal.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// ptr returns a pointer to n.
func ptr(n int64) *int64 { return &n }

// deref returns *p, or nil.
func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
