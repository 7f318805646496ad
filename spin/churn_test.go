package spin_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/spin"
)

// TestChurn_of_many_names_leaves_nothing_behind: a thousand names of spin
// locks, each locked, refused, waited for and given up, contended from two
// Clients, some holds lost and some Unlocks in doubt, leave the Clients
// keeping no channel, watchdog hold or local entry, no goroutine and no
// key but the fencing counters and the released tokens still in their
// 10 s.
func TestChurn_of_many_names_leaves_nothing_behind(t *testing.T) {
	redistest.Churn{New: func(c *lockkit.Client, name string) lockkit.Locker {
		return spin.New(c, name)
	}}.Run(t)
}
