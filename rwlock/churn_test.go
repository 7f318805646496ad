package rwlock_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// writer and reader return the write and the read side of a new RWMutex
// of c and name.
func writer(c *lockkit.Client, name string) lockkit.Locker { return rwlock.New(c, name) }
func reader(c *lockkit.Client, name string) lockkit.Locker {
	return rwlock.New(c, name).RLocker()
}

// TestChurn_of_many_names_leaves_nothing_behind: a thousand names of
// read-write locks, each write-locked, refused, waited for and given up,
// contended by writers from two Clients, some holds lost and some Unlocks
// in doubt, leave the Clients keeping no channel, watchdog hold or local
// entry (the waiting writers' places), no goroutine, no subscriber on the
// server and no key but the fencing counters and the released tokens
// still in their 10 s.
func TestChurn_of_many_names_leaves_nothing_behind(t *testing.T) {
	redistest.Churn{New: writer, Names: 600}.Run(t)
}

// TestChurn_of_many_names_read_while_written_leaves_nothing_behind is
// TestChurn_of_many_names_leaves_nothing_behind with readers contending
// with the writers.
func TestChurn_of_many_names_read_while_written_leaves_nothing_behind(t *testing.T) {
	redistest.Churn{New: writer, Contender: reader, Names: 600}.Run(t)
}

// TestChurn_of_many_names_written_while_read_leaves_nothing_behind is
// TestChurn_of_many_names_leaves_nothing_behind with readers holding and
// writers contending: the writers' intents, withdrawn or lapsed, are not
// left behind either.
func TestChurn_of_many_names_written_while_read_leaves_nothing_behind(t *testing.T) {
	redistest.Churn{New: reader, Contender: writer, Names: 600}.Run(t)
}
