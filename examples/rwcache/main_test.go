package main

import (
	"strings"
	"testing"

	"github.com/lockkit/lockkit/examples/internal/exampletest"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestRwcache_readers_never_see_a_torn_entry runs the program: each
// refresh writes under the write lock and then downgrades to the read lock
// and finds the version it wrote whole, and no reader ever read a torn
// entry; the lock is free at the end.
func TestRwcache_readers_never_see_a_torn_entry(t *testing.T) {
	exampletest.Run(t, func(t *testing.T, p *redistest.Child, _ *redistest.Server) {
		p.WaitLine(t, "refresh 1: downgraded to read; verified version 2 (torn: false)", redistest.Hang)
		p.WaitLine(t, "refresh 2: downgraded to read; verified version 3 (torn: false)", redistest.Hang)
		line := p.WaitLine(t, "done: ", redistest.Hang)
		if !strings.Contains(line, " reads, 0 torn, ") || !strings.HasSuffix(line, "; lock unlocked") {
			t.Errorf("last line %q, want no torn read and the lock unlocked", line)
		}
	}, "-refreshes", "2", "-every", "50ms")
}
