package lua

import (
	"strings"
	"testing"
)

func TestNeeded_keeps_what_the_code_uses_directly_or_not_in_order(t *testing.T) {
	defs := definitions(`-- header
-- limit is a constant.
local limit = 3

-- used by twice, unlike unused: a comment names no dependency.
local function once(x)
  -- an inner comment
  return x

end

local function twice(x)
  return once(once(x)) + limit
end

-- unused is named by nobody.
local function unused()
  return 0
end
-- trailing comment
`)
	var names []string
	for _, d := range defs {
		names = append(names, d.name)
	}
	if got := strings.Join(names, " "); got != "limit once twice unused" {
		t.Fatalf("definitions = %q", got)
	}
	got := needed(defs, "-- not unused\nreturn twice(1)")
	for _, want := range []string{"local limit = 3", "local function once(x)", "  -- an inner comment", "local function twice(x)"} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("needed lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "local function unused") {
		t.Errorf("needed keeps a definition only comments name:\n%s", got)
	}
	if strings.Index(got, "local limit") > strings.Index(got, "local function once") ||
		strings.Index(got, "local function once") > strings.Index(got, "local function twice") {
		t.Errorf("needed changes the order:\n%s", got)
	}
	if got := needed(defs, "return 1"); got != "" {
		t.Errorf("needed for a body that uses nothing = %q", got)
	}
}

func TestDefinitions_of_the_libraries_are_every_top_level_local(t *testing.T) {
	for _, lib := range []string{prelude, queue} {
		var want int
		for _, line := range strings.Split(lib, "\n") {
			if strings.HasPrefix(line, "local ") {
				want++
			}
		}
		defs := definitions(lib)
		if len(defs) != want {
			t.Errorf("%d definitions, want %d", len(defs), want)
		}
		var all strings.Builder
		for _, d := range defs {
			all.WriteString(d.text)
		}
		// The definitions are the library, but for the comment and blank
		// lines after the last one.
		rest, ok := strings.CutPrefix(lib, all.String())
		if !ok {
			t.Fatal("the definitions are not the library's text")
		}
		for _, line := range strings.Split(rest, "\n") {
			if line != "" && !strings.HasPrefix(line, "--") {
				t.Errorf("definitions leave out %q", line)
			}
		}
	}
}
