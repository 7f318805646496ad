package main

import (
	"strings"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/reentrant"
)

// TestRun_bad_command_lines_exit_2_without_touching_Redis checks the exit
// status doc.go promises for a bad command line, 2, on every way a command
// line can be wrong: no command, an unknown one, a flag or an argument
// count it does not take, flag values that cannot work (alone or
// together), an empty lock name. The command points at a port where nothing listens, so a
// line that reached Redis would fail there with status 1 instead.
func TestRun_bad_command_lines_exit_2_without_touching_Redis(t *testing.T) {
	c := cli{conn: []string{"-h", "127.0.0.1", "-p", "1", "--timeout", "5s"}}
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"--no-such-flag", "ls"},
		{"show", "--no-such-flag", "x"},
		{"show"},
		{"show", "a", "b"},
		{"ls", "a", "b"},
		{"watch"},
		{"unlock", "--force"},
		{"-o", "xml", "ls"},
		{"--prefix", "", "ls"},
		{"--prefix", "a{b", "ls"},
		{"--timeout", "0s", "ls"},
		{"--timeout", "-1s", "ls"},
		{"--cluster", "-n", "1", "ls"},
		{"--cluster", "--sentinel-master", "m", "--sentinel", "127.0.0.1:1", "ls"},
		{"--sentinel-master", "m", "ls"},
		{"--sentinel", "127.0.0.1:1", "ls"},
		{"-u", "redis://127.0.0.1:1", "--sentinel-master", "m", "--sentinel", "127.0.0.1:1", "ls"},
		{"--cacert", "/nonexistent", "ls"},
		{"--insecure", "ls"},
		{"-u", "http://127.0.0.1:1", "ls"},
		{"-p", "notaport", "ls"},
		{"watch", "--interval", "0s", "x"},
		{"unlock", "x"},
		{"show", ""},
		{"watch", ""},
		{"unlock", "--force", "--yes", ""},
	} {
		r := c.run(t, args...)
		if r.code != exitUsage {
			t.Errorf("lockkit %q: exit status %d, want %d\nstdout: %s\nstderr: %s", args, r.code, exitUsage, r.stdout, r.stderr)
		}
		if r.stdout != "" || strings.TrimSpace(r.stderr) == "" {
			t.Errorf("lockkit %q printed stdout %q, stderr %q: want only a word on stderr", args, r.stdout, r.stderr)
		}
	}
}

// TestRun_takes_flags_anywhere_and_a_dash_name_after_double_dash checks
// what doc.go says of the command line: flags may come before or after
// the command and its arguments, and "--" ends them, for a lock name that
// starts with '-'.
func TestRun_takes_flags_anywhere_and_a_dash_name_after_double_dash(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		name := "-" + f.name
		m := reentrant.New(f.lc, name, lockkit.WithOwner("owner"))
		holdTwice(t, m)
		for _, args := range [][]string{
			{"--prefix", f.prefix, "show", "--", name},
			{"show", "--prefix", f.prefix, "--", name},
		} {
			var l Lock
			f.okJSON(t, &l, args...)
			wantHeld(t, &l, m)
		}
		var entries []Entry
		f.okJSON(t, &entries, "ls", "*", "--prefix", f.prefix)
		if len(entries) != 1 || entries[0].Name != name {
			t.Errorf("ls * --prefix %s: %+v, want %s alone", f.prefix, entries, name)
		}
	})
}
