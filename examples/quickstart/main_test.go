package main

import (
	"testing"

	"github.com/lockkit/lockkit/examples/internal/exampletest"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestQuickstart_shows_reentry_a_woken_waiter_and_tokens runs the program
// and checks each step its doc names, in order: re-entry counts two holds,
// the second owner can neither take nor unlock the lock, it is woken by
// the release and gets a larger token, a Lock whose ctx ends gives up, and
// the last Unlock frees the lock.
func TestQuickstart_shows_reentry_a_woken_waiter_and_tokens(t *testing.T) {
	exampletest.Run(t, func(t *testing.T, p *redistest.Child, _ *redistest.Server) {
		first := p.WaitInt(t, "alice holds orders:42 with fencing token ", redistest.Hang)
		p.WaitLine(t, "alice locks again (re-entry): hold count 2", redistest.Hang)
		p.WaitLine(t, "bob tries the lock: false", redistest.Hang)
		p.WaitLine(t, "bob unlocks what he does not hold: lockkit: lock not held: \"orders:42\" (ErrNotHeld: true)", redistest.Hang)
		if next := p.WaitInt(t, "bob was woken and holds orders:42 with fencing token ", redistest.Hang); next <= first {
			t.Errorf("bob's token %d, want more than alice's %d", next, first)
		}
		p.WaitLine(t, "alice waits 100ms and gives up: lockkit: lock not obtained", redistest.Hang)
		p.WaitLine(t, "bob unlocks; still locked: false", redistest.Hang)
	})
}
