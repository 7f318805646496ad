package main

import (
	"slices"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestShow_decodes_a_RedLock_node_and_unlock_refuses_it checks what doc.go
// says of one node's part of a RedLock: show and ls give it as an
// exclusive hold of kind redlock with its token and lease, ls with no
// waiters ("-": they wait in their processes), and unlock --force refuses
// it with status 1, changing nothing, since freeing one node does not free
// the RedLock.
func TestShow_decodes_a_RedLock_node_and_unlock_refuses_it(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		m := multilock.NewRedLock([]*lockkit.Client{f.lc}, f.name, lockkit.WithOwner("red-owner"))
		redistest.MustLock(t, m)

		var l Lock
		f.okJSON(t, &l, "show", "--prefix", f.prefix, f.name)
		if l.Kind != "redlock" || !l.Held || l.Mode != "exclusive" || l.TTLMS <= 0 {
			t.Errorf("show: kind %q held %v mode %q ttl_ms %d, want a held redlock node with a lease", l.Kind, l.Held, l.Mode, l.TTLMS)
		}
		if got, want := holderLines(l.Holders), []string{"red-owner exclusive 1 " + itoa(m.Token())}; !slices.Equal(got, want) {
			t.Errorf("show: holders %q, want %q", got, want)
		}
		wantNoAnomalies(t, &l)
		var entries []Entry
		f.okJSON(t, &entries, "ls", "--prefix", f.prefix)
		if len(entries) != 1 || entries[0].Kind != "redlock" || entries[0].Waiters != nil {
			t.Errorf("ls: %+v, want the redlock node without a waiter count", entries)
		}

		f.wantForceRefused(t, "RedLock")
		redistest.MustUnlock(t, m)
	})
}

// TestUnlock_force_refuses_a_lock_of_unknown_kind checks that unlock
// --force leaves alone, with status 1, a hash whose ':kind' no lockkit
// kind writes: without the kind's ForceUnlock it could not wake waiters
// as the kind does.
func TestUnlock_force_refuses_a_lock_of_unknown_kind(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		if err := f.rc.HSet(f.ctx, keys(f.prefix, f.name).Base, ":kind", "gizmo", "x", "1", ":t:x", "3").Err(); err != nil {
			t.Fatal(err)
		}
		f.wantForceRefused(t, `unknown kind "gizmo"`)
	})
}

// TestUnlock_force_refuses_a_held_hash_without_a_kind checks that unlock
// --force does not call a lock "not held" and exit 0 when its hash holds
// a hold but lacks the ':kind' every kind writes (an anomaly show
// reports): it refuses with status 1 and changes nothing, as for a kind
// it does not know.
func TestUnlock_force_refuses_a_held_hash_without_a_kind(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		base := keys(f.prefix, f.name).Base
		if err := f.rc.HSet(f.ctx, base, "someone", "1", ":t:someone", "3").Err(); err != nil {
			t.Fatal(err)
		}
		if err := f.rc.PExpire(f.ctx, base, time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
		f.wantForceRefused(t, "no ':kind'")
	})
}
