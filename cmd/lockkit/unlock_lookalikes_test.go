package main

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestUnlock_force_frees_exactly_the_named_lock_among_lookalikes holds
// names that look like one another's keys, and odd names, under the
// fixture's prefix, and the same name under prefixes next to it (one that
// extends it, glob characters): ls lists the locks of its prefix alone,
// and unlock --force, given each name as the text output shows it (quoted
// when it is not plain: an argument cannot hold a NUL), frees it and no
// other lock.
func TestUnlock_force_frees_exactly_the_named_lock_among_lookalikes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		var names []string
		held := map[string]*reentrant.Mutex{}
		for _, name := range append(conformance.LookalikeNames(f.name), conformance.OddNames(f.name)...) {
			if held[name] == nil {
				names = append(names, name)
				held[name] = reentrant.New(f.lc, name)
				redistest.MustLock(t, held[name])
			}
		}
		// The same name under prefixes that extend the fixture's, or
		// would match it as a glob.
		var neighbours []*reentrant.Mutex
		for _, p := range []string{f.prefix + ":", f.prefix + "*", "*", f.prefix[:len(f.prefix)-1] + "?"} {
			m := reentrant.New(redistest.Lockkit(t, f.rc, lockkit.WithPrefix(p)), f.name)
			redistest.MustLock(t, m)
			neighbours = append(neighbours, m)
		}

		var entries []Entry
		f.okJSON(t, &entries, "ls", "--prefix", f.prefix)
		if len(entries) != len(names) {
			t.Errorf("ls listed %d locks, want the %d under its prefix", len(entries), len(names))
		}

		for i, name := range names {
			f.ok(t, "unlock", "--force", "--yes", "--prefix", f.prefix, shown(name))
			redistest.WantHoldCount(t, held[name], 0)
			for _, other := range names[i+1:] {
				redistest.WantHoldCount(t, held[other], 1)
			}
			if t.Failed() {
				t.Fatalf("unlock --force %q freed another lock, or not it", name)
			}
		}
		for _, m := range neighbours {
			redistest.WantHoldCount(t, m, 1)
		}
	})
}
