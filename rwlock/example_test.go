package rwlock_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/rwlock"
)

func Example() {
	ctx := context.Background()
	mr, _ := miniredis.Run()
	client := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()}))
	defer func() { client.Close(); client.Redis().Close(); mr.Close() }()

	// Each RWMutex is one owner: two readers and a writer of "config".
	const name = "config"
	alice, bob, writer := rwlock.New(client, name), rwlock.New(client, name), rwlock.New(client, name)

	_ = alice.RLock(ctx)
	_ = bob.RLock(ctx)
	n, _ := alice.Readers(ctx)
	fmt.Println("readers:", n)
	ok, _ := writer.TryLock(ctx)
	fmt.Println("writer got in while they read:", ok)

	_ = alice.RUnlock(ctx)
	_ = bob.RUnlock(ctx)
	_ = writer.Lock(ctx)
	mode, _ := writer.Mode(ctx)
	fmt.Println("mode:", mode)
	_ = writer.Unlock(ctx)
	// Output:
	// readers: 2
	// writer got in while they read: false
	// mode: write
}

// RLocker hands the read side to code that takes a [lockkit.Locker].
func ExampleRWMutex_RLocker() {
	ctx := context.Background()
	client, closeRedis := embeddedClient()
	defer closeRedis()

	// withLock runs f holding l, whichever kind of lock l is.
	withLock := func(l lockkit.Locker, f func()) error {
		if err := l.Lock(ctx); err != nil {
			return err
		}
		defer l.Unlock(ctx)
		f()
		return nil
	}
	m := rwlock.New(client, "config")
	_ = withLock(m.RLocker(), func() {
		s, _ := m.State(ctx)
		fmt.Println(s.Mode, s.RHoldCount)
	})
	_ = withLock(m, func() {
		s, _ := m.State(ctx)
		fmt.Println(s.Mode, s.HoldCount)
	})
	// Output:
	// read 1
	// write 1
}

// A writer that takes the read lock before unlocking keeps reading: no
// other writer can slip in between its write and its read. The other way
// round, a reader cannot become the writer in place: Lock says so at once.
func ExampleRWMutex_downgrade() {
	ctx := context.Background()
	client, closeRedis := embeddedClient()
	defer closeRedis()

	m := rwlock.New(client, "config")
	_ = m.Lock(ctx)
	// ... write the new configuration ...
	_ = m.RLock(ctx)
	_ = m.Unlock(ctx)
	mode, _ := m.Mode(ctx)
	fmt.Println("after Unlock:", mode)
	// ... read what was written, other readers welcome ...
	err := m.Lock(ctx)
	fmt.Println("Lock by the reader:", errors.Is(err, lockkit.ErrUpgrade))
	_ = m.RUnlock(ctx) // release, then lock for writing
	mode, _ = m.Mode(ctx)
	fmt.Println("after RUnlock:", mode)
	fmt.Println("Lock:", m.Lock(ctx))
	_ = m.Unlock(ctx)
	// Output:
	// after Unlock: read
	// Lock by the reader: true
	// after RUnlock: unlocked
	// Lock: <nil>
}

// embeddedClient returns a Client on a fresh embedded Redis (miniredis),
// as a real server would serve it, and the function that closes both.
// Example shows the same set-up written out.
func embeddedClient() (*lockkit.Client, func()) {
	mr, _ := miniredis.Run()
	client := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()}))
	return client, func() { client.Close(); client.Redis().Close(); mr.Close() }
}
