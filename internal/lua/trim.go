package lua

import (
	"regexp"
	"slices"
	"strings"
)

// A definition is one top-level local of a library file (the prelude,
// queue.lua, or a kind's file of shared definitions) with the comment
// above it: a helper function, or one or more constants (local a, b = …).
type definition struct {
	names []string // what it defines
	text  string
	uses  []string // the identifiers its code names
}

var (
	identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	localNames = regexp.MustCompile(`^local (?:function )?([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)`)
)

// definitions splits library source into its top-level locals. A line at
// column 0 that begins with "local " starts one; comment and blank lines at
// column 0 go with the definition that follows them; any other line (an
// indented body, a closing "end") continues the current one.
func definitions(src string) []definition {
	var defs []definition
	var pending strings.Builder // comment and blank lines awaiting a definition
	for _, line := range strings.SplitAfter(src, "\n") {
		switch {
		case strings.HasPrefix(line, "local "):
			m := localNames.FindStringSubmatch(line)
			if m == nil {
				panic("lua: unnamed top-level local: " + line)
			}
			defs = append(defs, definition{names: identifier.FindAllString(m[1], -1), text: pending.String() + line})
			pending.Reset()
		case strings.HasPrefix(line, "--") || strings.TrimSpace(line) == "":
			pending.WriteString(line)
		default:
			if len(defs) == 0 {
				panic("lua: library code outside a top-level local: " + line)
			}
			defs[len(defs)-1].text += pending.String() + line
			pending.Reset()
		}
	}
	for i := range defs {
		defs[i].uses = names(defs[i].text)
	}
	return defs
}

// names returns the identifiers that the code of src names; its comment
// lines do not count.
func names(src string) []string {
	var ids []string
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			ids = append(ids, identifier.FindAllString(line, -1)...)
		}
	}
	return ids
}

// needed returns, in their order, the definitions of defs that the code of
// body names, directly or through other definitions: a script carries only
// the helpers it runs, for Redis runs every top-level statement of a
// script at each call, and each helper is a closure made anew. A name is
// resolved as Lua scopes it: in body, to its last definition; in a
// definition, to the last one before it (a kind's file may define a name
// the prelude has too, which the prelude's own helpers still mean).
func needed(defs []definition, body string) string {
	byName := make(map[string][]int, len(defs)) // each name's definitions, in order
	for i, d := range defs {
		for _, n := range d.names {
			byName[n] = append(byName[n], i)
		}
	}
	keep := make([]bool, len(defs))
	var visit func(names []string, before int)
	visit = func(names []string, before int) {
		for _, n := range names {
			if before < len(defs) && slices.Contains(defs[before].names, n) {
				continue // the definition's own name (or a call of itself)
			}
			at := byName[n]
			k := len(at) - 1
			for k >= 0 && at[k] >= before {
				k--
			}
			if k < 0 || keep[at[k]] {
				continue
			}
			i := at[k]
			keep[i] = true
			visit(defs[i].uses, i)
		}
	}
	visit(names(body), len(defs))
	var b strings.Builder
	for i, d := range defs {
		if keep[i] {
			b.WriteString(d.text)
		}
	}
	return b.String()
}
