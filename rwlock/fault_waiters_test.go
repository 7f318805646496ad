package rwlock_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// Many readers and writers, in two Clients, waiting behind a writer when
// the server stalls or restarts: each gets the lock in turn once the
// server answers again, none gets an error, and none gets in beside a
// writer.

// The waiters of each Client, and how many holds each takes.
const (
	readersPerClient = 3
	writersPerClient = 2
	roundsPerWaiter  = 3
)

// exclusion counts the readers and writers inside a lock, as their calls
// tell, and reports one that gets in beside a writer.
type exclusion struct {
	mu               sync.Mutex
	readers, writers int
}

// enter records a holder getting in; it fails when a writer is inside, or
// when a writer gets in while readers are.
func (e *exclusion) enter(write bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.writers > 0 || write && e.readers > 0 {
		return fmt.Errorf("got in (writer: %v) beside %d readers and %d writers", write, e.readers, e.writers)
	}
	if write {
		e.writers++
	} else {
		e.readers++
	}
	return nil
}

// leave records a holder leaving.
func (e *exclusion) leave(write bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if write {
		e.writers--
	} else {
		e.readers--
	}
}

// rounds takes m's write lock (or read lock), holds it for a moment and
// releases it, rounds times, and returns the first error.
func (e *exclusion) rounds(t *testing.T, m *rwlock.RWMutex, write bool, rounds int) error {
	lock, unlock := side(m, write)
	for i := range rounds {
		if err := lock(redistest.Ctx(t, spanTimeout)); err != nil {
			return fmt.Errorf("round %d: lock (writer: %v): %w", i, write, err)
		}
		err := e.enter(write)
		time.Sleep(2 * time.Millisecond) // a short hold, for others to overlap
		if err == nil {
			e.leave(write)
		}
		if uerr := unlock(redistest.Ctx(t, waitTimeout)); uerr != nil && err == nil {
			err = fmt.Errorf("round %d: unlock (writer: %v): %w", i, write, uerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// TestWaiters_of_two_Clients_get_the_lock_in_turn_across_a_stall_or_restart
// checks that writers and readers of two Clients waiting behind a holder
// (a writer, or a reader: then the writers' intents hold the readers
// back) all get the lock, in turn, when the server stalls for two seconds
// (the holder's release sent meanwhile) or restarts empty (the holder's
// hold lost: its release returns ErrLost), and that nothing of the lock is
// left afterwards.
func TestWaiters_of_two_Clients_get_the_lock_in_turn_across_a_stall_or_restart(t *testing.T) {
	for _, tc := range []struct {
		fault string
		read  bool // the holder reads
	}{{"stall", false}, {"restart", false}, {"stall", true}, {"restart", true}} {
		behind := "a writer"
		if tc.read {
			behind = "a reader"
		}
		t.Run(tc.fault+" behind "+behind, func(t *testing.T) {
			srv := redistest.StartServer(t)
			clients := []*lockkit.Client{redistest.Lockkit(t, srv.Client(t)), redistest.Lockkit(t, srv.Client(t))}
			name := redistest.Unique(t)
			holder := rwlock.New(clients[0], name)
			hold, release := side(holder, !tc.read)
			must(t, holder, "hold", hold)
			var ex exclusion
			var results []<-chan error
			// wait starts n waiters of each Client, writing or reading, and
			// returns once they all sleep: the writers first, so that their
			// intents hold back the readers of a read-locked lock.
			wait := func(write bool, n int, channelOf func(lc *lockkit.Client) string) {
				t.Helper()
				for _, lc := range clients {
					for range n {
						m := rwlock.New(lc, name)
						results = append(results, async(t, func() error { return ex.rounds(t, m, write, roundsPerWaiter) }))
					}
				}
				for i, lc := range clients {
					redistest.Eventually(t, waitTimeout, fmt.Sprintf("the waiters (writing: %v) of Client %d to sleep", write, i), func() bool {
						return lc.Notifier().Sleeping(channelOf(lc)) == n
					})
				}
			}
			wait(true, writersPerClient, func(lc *lockkit.Client) string { return writersChannel(lc, name) })
			wait(false, readersPerClient, func(lc *lockkit.Client) string { return channel(lc, name, "ch") })

			var released <-chan error
			switch tc.fault {
			case "stall":
				srv.Stall(t, 2*time.Second)
				released = async(t, func() error { return release(redistest.Ctx(t, spanTimeout)) })
			case "restart":
				srv.Restart(t)
			}
			for i, got := range results {
				if err := redistest.Receive(t, got, spanTimeout, fmt.Sprintf("waiter %d", i)); err != nil {
					t.Errorf("waiter %d across the %s: %v", i, tc.fault, err)
				}
			}
			if released != nil {
				if err := redistest.Receive(t, released, waitTimeout, "the holder's release"); err != nil {
					t.Fatalf("holder's release across the stall = %v", err)
				}
			} else {
				redistest.WantErr(t, release(redistest.Ctx(t, waitTimeout)), lockkit.ErrLost)
			}
			redistest.AssertClean(t, srv.Client(t), name)
		})
	}
}
