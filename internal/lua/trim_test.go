package lua

import (
	"embed"
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
		names = append(names, d.names...)
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

//go:embed testdata/*.lua
var testdata embed.FS

func TestLoad_carries_of_a_kinds_shared_file_only_what_the_operation_uses(t *testing.T) {
	got := source(preludeDefs, testdata, "testdata/common.lua", "testdata/op.lua")
	for _, want := range []string{
		"local HASH, LEASES = KEYS[1], KEYS[2]", // LEASES is used: both names stay
		"local NOW = now_ms()",
		"local function lease_of(h)",
		"local function now_ms()", // of the prelude, used by the shared file
		"local function server_time()",
		"return {lease_of(ARGV[1]), NOW}",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("the script lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"UNUSED_A", "never_called", "local function mint("} {
		if strings.Contains(got, unwanted) {
			t.Errorf("the script carries %q, which the operation does not use:\n%s", unwanted, got)
		}
	}
	if strings.Index(got, "local function now_ms()") > strings.Index(got, "local NOW") ||
		strings.Index(got, "local NOW") > strings.Index(got, "return {") {
		t.Errorf("the script is out of order:\n%s", got)
	}
}

func TestDefinitions_name_every_local_of_a_multiple_assignment(t *testing.T) {
	defs := definitions("local a, b_2 ,c = 1, 2, 3\nlocal d =\n  4\n")
	var names []string
	for _, d := range defs {
		names = append(names, d.names...)
	}
	if got := strings.Join(names, " "); got != "a b_2 c d" {
		t.Fatalf("names = %q, want \"a b_2 c d\"", got)
	}
	if got := needed(defs, "return c"); got != "local a, b_2 ,c = 1, 2, 3\n" {
		t.Errorf("needed for a body that uses c = %q", got)
	}
}

func TestNeeded_resolves_a_name_defined_twice_as_Lua_scopes_it(t *testing.T) {
	defs := definitions(`local function wake(x)
  return 'first'
end
local function ring(x)
  return wake(x)
end
local function wake(x)
  return 'second'
end
`)
	got := needed(defs, "return {ring(1), wake(2)}")
	if strings.Count(got, "local function wake(x)") != 2 || !strings.Contains(got, "local function ring(x)") {
		t.Errorf("needed for a body calling ring, which calls the first wake, and the second wake:\n%s", got)
	}
	got = needed(defs, "return wake(2)")
	if strings.Contains(got, "'first'") || !strings.Contains(got, "'second'") {
		t.Errorf("needed for a body calling wake keeps the wrong one:\n%s", got)
	}
}
