package main

import (
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestShow_decodes_a_downgraded_rwlock_without_anomalies checks that the
// readers' turn a downgrade leaves in a read-write lock's hash
// (':readturn') is a field show knows, not an anomaly.
func TestShow_decodes_a_downgraded_rwlock_without_anomalies(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		m := rwlock.New(f.lc, f.name)
		redistest.MustLock(t, m)
		if err := m.RLock(f.ctx); err != nil {
			t.Fatal(err)
		}
		redistest.MustUnlock(t, m)
		if _, ok := f.hash(t)[":readturn"]; !ok {
			t.Fatalf("hash after a downgrade = %v, want a readers' turn", f.hash(t))
		}
		var l Lock
		f.okJSON(t, &l, "show", "--prefix", f.prefix, f.name)
		if len(l.Anomalies) != 0 || l.Mode != "read" {
			t.Fatalf("show of a downgraded lock: mode %q, anomalies %q; want read, none", l.Mode, l.Anomalies)
		}
		if err := m.RUnlock(f.ctx); err != nil {
			t.Fatal(err)
		}
	})
}
