package reentrant_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/reentrant"
)

func Example() {
	mr, _ := miniredis.Run()
	locks := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()})) // one per Redis, shared by every lock
	defer func() { locks.Close(); locks.Redis().Close(); mr.Close() }()

	m := reentrant.New(locks, "orders:42")
	ctx := context.Background()
	if err := m.Lock(ctx); err != nil {
		panic(err)
	}
	fmt.Println("locked with a fencing token:", m.Token() > 0)
	// ... work on order 42, passing m.Token() to storage that checks it ...
	if err := m.Unlock(ctx); err != nil {
		panic(err)
	}
	fmt.Println("unlocked")
	// Output:
	// locked with a fencing token: true
	// unlocked
}

func ExampleMutex_TryLock() {
	locks, closeRedis := embeddedClient()
	defer closeRedis()
	ctx := context.Background()

	a, b := reentrant.New(locks, "report"), reentrant.New(locks, "report") // two owners of one lock
	ok, _ := a.TryLock(ctx)
	fmt.Println("a:", ok)
	ok, _ = b.TryLock(ctx)
	fmt.Println("b:", ok)
	err := b.Unlock(ctx)
	fmt.Println(errors.Is(err, lockkit.ErrNotHeld))
	_ = a.Unlock(ctx)
	// Output:
	// a: true
	// b: false
	// true
}

func ExampleMutex_Lock_timeout() {
	locks, closeRedis := embeddedClient()
	defer closeRedis()

	holder := reentrant.New(locks, "invoice:7")
	_ = holder.Lock(context.Background())
	defer holder.Unlock(context.Background())

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := reentrant.New(locks, "invoice:7").Lock(ctx)
	fmt.Println(errors.Is(err, lockkit.ErrNotObtained), errors.Is(err, context.DeadlineExceeded))
	// Output:
	// true true
}

// A worker stops its work when the lock is lost, instead of carrying on
// without mutual exclusion.
func ExampleMutex_Lost() {
	locks, closeRedis := embeddedClient()
	defer closeRedis()

	m := reentrant.New(locks, "job:9", lockkit.WithLease(100*time.Millisecond))
	ctx := context.Background()
	if err := m.Lock(ctx); err != nil {
		panic(err)
	}
	select {
	case <-m.Lost():
		fmt.Println("lease over: stop working")
	case <-time.After(10 * time.Second):
		fmt.Println("work done")
	}
	err := m.Unlock(ctx)
	fmt.Println(errors.Is(err, lockkit.ErrLost))
	// Output:
	// lease over: stop working
	// true
}

// Work done under a lock can stop when the lock is gone: Context ends when
// the hold is lost or released.
func ExampleMutex_Context() {
	locks, closeRedis := embeddedClient()
	defer closeRedis()
	ctx := context.Background()

	m := reentrant.New(locks, "nightly-report", lockkit.WithMaxHold(time.Hour))
	if err := m.Lock(ctx); err != nil {
		panic(err)
	}
	work := m.Context(ctx) // pass it to everything the work calls
	fmt.Println("working:", work.Err() == nil)
	_ = m.Unlock(ctx)
	<-work.Done()
	fmt.Println("stopped:", errors.Is(context.Cause(work), lockkit.ErrNotHeld))
	// Output:
	// working: true
	// stopped: true
}

// fencedStore is storage that checks fencing tokens: it refuses a write
// with a token older than one it has seen, so a holder that lost the lock
// without knowing (a long GC pause, say) cannot overwrite newer data.
type fencedStore struct {
	last  int64
	value string
}

func (s *fencedStore) write(token int64, v string) error {
	if token < s.last {
		return fmt.Errorf("stale token: %d is older than %d", token, s.last)
	}
	s.last, s.value = token, v
	return nil
}

// Fencing: pass the token with every write the lock protects, and let the
// storage refuse older tokens.
func ExampleMutex_Token() {
	mr, _ := miniredis.Run()
	locks := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()}))
	defer func() { locks.Close(); locks.Redis().Close(); mr.Close() }()
	ctx := context.Background()
	store := &fencedStore{}

	slow := reentrant.New(locks, "account:7", lockkit.WithLease(time.Second))
	if err := slow.Lock(ctx); err != nil {
		panic(err)
	}
	old := slow.Token()
	mr.FastForward(2 * time.Second) // slow stalls past its lease: the lock frees itself

	fast := reentrant.New(locks, "account:7")
	if err := fast.Lock(ctx); err != nil {
		panic(err)
	}
	fmt.Println("newer token:", fast.Token() > old)
	fmt.Println("fast writes:", store.write(fast.Token(), "balance=90"))
	fmt.Println("slow writes:", store.write(old, "balance=100") != nil)
	fmt.Println("stored:", store.value)
	_ = fast.Unlock(ctx)
	// Output:
	// newer token: true
	// fast writes: <nil>
	// slow writes: true
	// stored: balance=90
}

// Without re-entry, one Mutex is a sync.Mutex across goroutines: the
// holder's own TryLock fails, a second Lock waits for the Unlock, and
// goroutines sharing the value take turns.
func Example_withoutReentry() {
	locks, closeRedis := embeddedClient()
	defer closeRedis()
	ctx := context.Background()

	m := reentrant.New(locks, "ledger", lockkit.WithoutReentry())
	_ = m.Lock(ctx)
	ok, _ := m.TryLock(ctx)
	fmt.Println("holder's TryLock:", ok)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	err := m.Lock(short) // waits for m's own hold, which stays
	cancel()
	fmt.Println("holder's Lock gave up:", errors.Is(err, lockkit.ErrNotObtained))
	n, _ := m.HoldCount(ctx)
	fmt.Println("hold count:", n)
	_ = m.Unlock(ctx)

	// Atomics only because the race detector cannot see the order that
	// the lock sets through Redis.
	var inside, overlaps, turns atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := m.Lock(ctx); err != nil {
				panic(err)
			}
			if inside.Add(1) > 1 {
				overlaps.Add(1)
			}
			turns.Add(1)
			inside.Add(-1)
			_ = m.Unlock(ctx)
		})
	}
	wg.Wait()
	fmt.Println("turns:", turns.Load(), "overlaps:", overlaps.Load())
	// Output:
	// holder's TryLock: false
	// holder's Lock gave up: true
	// hold count: 1
	// turns: 4 overlaps: 0
}

// A worker pool in one process that takes one lock in a tight loop: with
// cohort mode the process holds the lock in Redis, and a Mutex that
// unlocks while another of the pool waits hands the hold over in memory.
func ExampleWithLocalHandoff() {
	locks, closeRedis := embeddedClient()
	defer closeRedis()

	// At most 64 hand-overs or 10 ms in a row, then the lock goes back to
	// Redis, where other processes wait their turn.
	handoff := reentrant.WithLocalHandoff(64, 10*time.Millisecond)
	ctx := context.Background()
	var (
		wg    sync.WaitGroup
		count int // guarded by the lock
	)
	for range 8 {
		m := reentrant.New(locks, "counter", handoff) // one owner per worker
		wg.Go(func() {
			for range 100 {
				if err := m.Lock(ctx); err != nil {
					panic(err)
				}
				count++
				if err := m.Unlock(ctx); err != nil {
					panic(err)
				}
			}
		})
	}
	wg.Wait()
	fmt.Println("count:", count)
	// Output:
	// count: 800
}

// embeddedClient returns a Client on a fresh embedded Redis (miniredis),
// as a real server would serve it, and the function that closes both.
// Example shows the same set-up written out.
func embeddedClient() (*lockkit.Client, func()) {
	mr, _ := miniredis.Run()
	client := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()}))
	return client, func() { client.Close(); client.Redis().Close(); mr.Close() }
}
