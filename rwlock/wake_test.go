package rwlock_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// These tests count the scripts the waiters send. Waiters wait with the
// default 30 s lease (and a 10 s intent heartbeat), so within a test only
// wake-ups can make them try again: each try after the first two
// (before and after subscribing) is a wake-up they acted on.

// counted returns a Client of a new redis client to the same server as c,
// whose commands are counted, with every script of the package already
// loaded on the server so that each script call counts once.
func counted(t *testing.T, c redis.UniversalClient) (*lockkit.Client, *redistest.Counter) {
	t.Helper()
	cc := redis.NewClient(&redis.Options{Addr: c.(*redis.Client).Options().Addr})
	t.Cleanup(func() { _ = cc.Close() })
	lc := redistest.Lockkit(t, cc)
	warm := rwlock.New(lc, redistest.Unique(t))
	ctx := redistest.Ctx(t, waitTimeout)
	for _, f := range []func() error{
		func() error { _, err := warm.TryRLock(ctx); return err },
		func() error { return warm.RUnlock(ctx) },
		func() error { _, err := warm.TryLock(ctx); return err },
		func() error { return warm.Unlock(ctx) },
	} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	return lc, redistest.CountCommands(cc)
}

func wantScripts(t *testing.T, counter *redistest.Counter, want int64, what string) {
	t.Helper()
	redistest.Eventually(t, waitTimeout, what, func() bool { return counter.Scripts() >= want })
	if got := counter.Scripts(); got != want {
		t.Fatalf("%s: %d scripts sent, want exactly %d", what, got, want)
	}
}

func TestUnlock_wakes_every_waiting_reader(t *testing.T) {
	onBackends(t, func(t *testing.T, c redis.UniversalClient, lc *lockkit.Client, name string) {
		const n = 5
		rc, counter := counted(t, c)
		w := rwlock.New(lc, name)
		redistest.MustLock(t, w)
		var done []<-chan error
		for range n {
			r := rwlock.New(rc, name)
			done = append(done, async(t, func() error { return r.RLock(redistest.Ctx(t, waitTimeout)) }))
			t.Cleanup(func() { _ = r.RUnlock(redistest.Ctx(t, waitTimeout)) })
		}
		redistest.Eventually(t, waitTimeout, "every reader to sleep", func() bool {
			return rc.Notifier().Sleeping(channel(rc, name, "ch")) == n
		})
		redistest.MustUnlock(t, w)
		// The writer's lease was 30 s: only the release message can wake
		// the readers within the deadline.
		for i, ch := range done {
			if err := redistest.Receive(t, ch, waitTimeout, "a woken reader's RLock"); err != nil {
				t.Fatalf("reader %d: %v", i, err)
			}
		}
		// At most two tries before sleeping and one after the wake-up.
		if got := counter.Scripts(); got > 3*n {
			t.Fatalf("%d scripts sent by %d readers, want at most %d", got, n, 3*n)
		}
		if s := state(t, w); s.Mode != rwlock.ReadLocked || s.Readers != n {
			t.Fatalf("state = %+v; want %d readers together", s, n)
		}
	})
}

func TestUnlock_wakes_one_writer_per_process(t *testing.T) {
	onBackends(t, func(t *testing.T, c redis.UniversalClient, lc *lockkit.Client, name string) {
		wc, counter := counted(t, c)
		first := rwlock.New(lc, name)
		redistest.MustLock(t, first)
		const n = 4
		writers := make([]*rwlock.RWMutex, n)
		done := make([]<-chan error, n)
		for i := range writers {
			w := rwlock.New(wc, name)
			writers[i] = w
			done[i] = async(t, func() error { return w.Lock(redistest.Ctx(t, waitTimeout)) })
		}
		// Asleep, not just queued: the head has made its last try, so the
		// release below is what wakes it (a head still about to try could
		// take the lock first and leave the wake-up to the next writer).
		redistest.Eventually(t, waitTimeout, "every writer to sleep", func() bool {
			return wc.Notifier().Sleeping(writersChannel(wc, name)) == n
		})
		// winner returns the writer whose Lock returned.
		winner := func() *rwlock.RWMutex {
			t.Helper()
			var got *rwlock.RWMutex
			redistest.Eventually(t, waitTimeout, "a writer to take the lock", func() bool {
				for i, ch := range done {
					if ch == nil {
						continue
					}
					select {
					case err := <-ch:
						if err != nil {
							t.Fatalf("writer %d: %v", i, err)
						}
						got, done[i] = writers[i], nil
						return true
					default:
					}
				}
				return false
			})
			return got
		}
		redistest.MustUnlock(t, first)
		holder := winner()
		for round := 1; round < n; round++ {
			if got := wc.Notifier().Waiters(writersChannel(wc, name)); got != n-round {
				t.Fatalf("round %d: %d writers waiting, want %d", round, got, n-round)
			}
			before := counter.Scripts()
			redistest.MustUnlock(t, holder)
			holder = winner()
			// The Unlock and one try by the one writer it woke: the
			// others slept on.
			if got := counter.Scripts() - before; got != 2 {
				t.Fatalf("round %d: %d scripts for one hand-over, want 2 (unlock, one try)", round, got)
			}
		}
		redistest.MustUnlock(t, holder)
	})
}

func TestRUnlock_last_reader_wakes_writer(t *testing.T) {
	onBackends(t, func(t *testing.T, c redis.UniversalClient, lc *lockkit.Client, name string) {
		wc, counter := counted(t, c)
		r1, r2 := rwlock.New(lc, name), rwlock.New(lc, name)
		mustRLock(t, r1)
		mustRLock(t, r2)
		w := rwlock.New(wc, name)
		done := async(t, func() error { return w.Lock(redistest.Ctx(t, waitTimeout)) })
		// Asleep: both tries before sleeping have run (the counter counts
		// a script when it is sent).
		redistest.Eventually(t, waitTimeout, "the writer to sleep", func() bool {
			return wc.Notifier().Sleeping(writersChannel(wc, name)) == 1
		})
		wantScripts(t, counter, 2, "the writer's two tries before it sleeps")
		mustRUnlock(t, r1) // not the last reader: the writer sleeps on
		pending(t, done, "Lock while a reader is left")
		mustRUnlock(t, r2)
		if err := redistest.Receive(t, done, waitTimeout, "Lock after the last reader left"); err != nil {
			t.Fatal(err)
		}
		// Two tries before sleeping, one after the last reader left: the
		// first RUnlock woke nobody.
		wantScripts(t, counter, 3, "one try after the last read release")
		redistest.MustUnlock(t, w)
	})
}

func TestLock_giving_up_wakes_held_back_readers(t *testing.T) {
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
		r0, w, r1 := rwlock.New(lc, name), rwlock.New(lc, name), rwlock.New(lc, name)
		mustRLock(t, r0)
		wctx, cancel := context.WithCancel(t.Context())
		wdone := async(t, func() error { return w.Lock(wctx) })
		redistest.Eventually(t, waitTimeout, "the writer's intent", func() bool { return state(t, r0).WaitingWriters == 1 })
		// r1 is held back by the intent, which would last 30 s.
		rdone := async(t, func() error { return r1.RLock(redistest.Ctx(t, waitTimeout)) })
		redistest.Eventually(t, waitTimeout, "the reader to wait", func() bool {
			return lc.Notifier().Waiters(channel(lc, name, "ch")) == 1
		})
		pending(t, rdone, "RLock behind a waiting writer")
		cancel()
		if err := redistest.Receive(t, wdone, waitTimeout, "the cancelled Lock"); err == nil {
			t.Fatal("cancelled Lock succeeded")
		}
		if err := redistest.Receive(t, rdone, waitTimeout, "RLock after the writer gave up"); err != nil {
			t.Fatal(err)
		}
		mustRUnlock(t, r1)
		mustRUnlock(t, r0)
	})
}

// TestUnlock_wakes_one_writer_process checks that, across processes, the
// release that frees the lock (a writer's Unlock, or the last reader's
// RUnlock) wakes the writers of one process, not one writer in each: every
// acquisition costs one acquire, however many processes wait.
func TestUnlock_wakes_one_writer_process(t *testing.T) {
	for _, read := range []bool{false, true} {
		t.Run(fmt.Sprintf("read=%v", read), func(t *testing.T) {
			srv := redistest.StartServer(t)
			name := redistest.Unique(t)
			holder := rwlock.New(redistest.Lockkit(t, srv.Client(t)), name)
			if read {
				// Loads the write scripts into the server, as the holder's
				// Unlock does for read=false: a first EVALSHA of a script
				// is refused, and would be counted as one more.
				redistest.MustLock(t, holder)
				redistest.MustUnlock(t, holder)
				mustRLock(t, holder)
			} else {
				redistest.MustLock(t, holder)
			}
			const P = 8
			counter := redistest.NewCounter()
			done := make(chan error, P)
			for range P {
				rc := srv.Client(t)
				rc.AddHook(counter.Hook())
				lc := redistest.Lockkit(t, rc)
				w := rwlock.New(lc, name)
				go func() {
					ctx := redistest.Ctx(t, waitTimeout)
					if err := w.Lock(ctx); err != nil {
						done <- err
						return
					}
					done <- w.Unlock(ctx)
				}()
				redistest.Eventually(t, waitTimeout, "the writer to sleep", func() bool {
					return lc.Notifier().Sleeping(writersChannel(lc, name)) == 1
				})
			}
			counter.Reset()
			if read {
				mustRUnlock(t, holder)
			} else {
				redistest.MustUnlock(t, holder)
			}
			for range P {
				if err := redistest.Receive(t, done, waitTimeout, "a writer's Lock and Unlock"); err != nil {
					t.Fatal(err)
				}
			}
			if got := counter.Scripts(); got != 2*P {
				t.Fatalf("%d scripts for %d write acquisitions across %d processes, want %d (one acquire and one release each)", got, P, P, 2*P)
			}
		})
	}
}
