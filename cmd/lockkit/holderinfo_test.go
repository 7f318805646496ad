package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
)

// TestShow_prints_who_holds_a_lock_made_WithHolderInfo checks what the
// README promises of lockkit.WithHolderInfo: show prints the host, process
// id and start stored beside each hold, in its text and as each holder's
// info in JSON, for an exclusive hold and for a read-write lock's read
// hold alike.
func TestShow_prints_who_holds_a_lock_made_WithHolderInfo(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		c := redistest.Lockkit(t, f.rc, lockkit.WithPrefix(f.prefix), lockkit.WithHolderInfo())
		host, err := os.Hostname()
		if err != nil {
			t.Fatal(err)
		}
		rw := redistest.Unique(t)
		redistest.MustLock(t, reentrant.New(c, f.name, lockkit.WithOwner("re-owner")))
		if err := rwlock.New(c, rw, lockkit.WithOwner("reader")).RLock(f.ctx); err != nil {
			t.Fatal(err)
		}
		for name, owner := range map[string]string{f.name: "re-owner", rw: "reader"} {
			var l Lock
			f.okJSON(t, &l, "show", "--prefix", f.prefix, name)
			var info core.HolderInfo
			if len(l.Holders) != 1 || json.Unmarshal([]byte(l.Holders[0].Info), &info) != nil {
				t.Fatalf("show %s: holders %+v, want one with its info", name, l.Holders)
			}
			if info.Host != host || info.PID != os.Getpid() || info.Since.IsZero() {
				t.Errorf("show %s: info %+v, want host %q, pid %d and a start", name, info, host, os.Getpid())
			}
			if out := f.ok(t, "show", "--prefix", f.prefix, name); !strings.Contains(out, owner+": "+l.Holders[0].Info) {
				t.Errorf("show %s printed\n%s\nwithout %s's info %s", name, out, owner, l.Holders[0].Info)
			}
		}
	})
}
