package main

import (
	"strings"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestShow_and_ls_without_prefix_read_the_locks_of_lockkits_default_prefix:
// without --prefix the command reads the locks a Client made without
// WithPrefix keeps, PREFIX "lockkit" (doc.go: --prefix defaults to
// "lockkit", as lockkit.WithPrefix), and prints text without -o.
func TestShow_and_ls_without_prefix_read_the_locks_of_lockkits_default_prefix(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	c := cliFor(t, rc)
	name := redistest.Unique(t)
	m := reentrant.New(redistest.Lockkit(t, rc), name)
	redistest.MustLock(t, m)

	var l Lock
	c.okJSON(t, &l, "show", name)
	if l.Key != "lockkit:{"+name+"}" || l.Kind != "reentrant" || !l.Held || len(l.Holders) != 1 || l.Holders[0].Token != m.Token() {
		t.Errorf("show %s without --prefix = %+v; want the held lock lockkit:{%s}", name, l, name)
	}
	var entries []Entry
	c.okJSON(t, &entries, "ls", name)
	if len(entries) != 1 || entries[0].Name != name || entries[0].Kind != "reentrant" {
		t.Errorf("ls %s without --prefix = %+v; want the one lock", name, entries)
	}
	if out := c.ok(t, "show", name); !strings.Contains(out, "key          lockkit:{"+name+"}") {
		t.Errorf("show %s without -o printed %q; want the text form", name, out)
	}
	redistest.MustUnlock(t, m)
}
