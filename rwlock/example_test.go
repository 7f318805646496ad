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
	mr := miniredis.NewMiniRedis()
	if err := mr.Start(); err != nil {
		panic(err)
	}
	defer mr.Close()
	rc := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rc.Close()
	client := lockkit.New(rc)
	defer client.Close()
	ctx := context.Background()

	// Each RWMutex is one owner: two readers and a writer of "config".
	alice := rwlock.New(client, "config")
	bob := rwlock.New(client, "config")
	writer := rwlock.New(client, "config")

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

// A writer that takes the read lock before unlocking keeps reading: no
// other writer can slip in between its write and its read.
func ExampleRWMutex_Unlock_downgrade() {
	mr := miniredis.NewMiniRedis()
	if err := mr.Start(); err != nil {
		panic(err)
	}
	defer mr.Close()
	rc := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rc.Close()
	client := lockkit.New(rc)
	defer client.Close()
	ctx := context.Background()

	m := rwlock.New(client, "config")
	_ = m.Lock(ctx)
	// ... write the new configuration ...
	_ = m.RLock(ctx)
	_ = m.Unlock(ctx)
	mode, _ := m.Mode(ctx)
	fmt.Println("after Unlock:", mode)
	// ... read what was written, other readers welcome ...
	_ = m.RUnlock(ctx)
	mode, _ = m.Mode(ctx)
	fmt.Println("after RUnlock:", mode)
	// Output:
	// after Unlock: read
	// after RUnlock: unlocked
}

// A reader cannot become the writer in place: Lock says so at once.
func ExampleRWMutex_Lock_upgrade() {
	mr := miniredis.NewMiniRedis()
	if err := mr.Start(); err != nil {
		panic(err)
	}
	defer mr.Close()
	rc := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rc.Close()
	client := lockkit.New(rc)
	defer client.Close()
	ctx := context.Background()

	m := rwlock.New(client, "config")
	_ = m.RLock(ctx)
	err := m.Lock(ctx)
	fmt.Println(errors.Is(err, lockkit.ErrUpgrade))
	_ = m.RUnlock(ctx) // release, then lock for writing
	fmt.Println(m.Lock(ctx))
	_ = m.Unlock(ctx)
	// Output:
	// true
	// <nil>
}

// RLocker hands the read side to code that takes a [lockkit.Locker].
func ExampleRWMutex_RLocker() {
	mr := miniredis.NewMiniRedis()
	if err := mr.Start(); err != nil {
		panic(err)
	}
	defer mr.Close()
	rc := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rc.Close()
	client := lockkit.New(rc)
	defer client.Close()
	ctx := context.Background()

	m := rwlock.New(client, "config")
	withLock := func(l lockkit.Locker, f func()) error {
		if err := l.Lock(ctx); err != nil {
			return err
		}
		defer l.Unlock(ctx)
		f()
		return nil
	}
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
