package reentrant_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// BenchmarkMutex_uncontended locks and unlocks one free lock: two round
// trips per cycle. It reports the commands sent per cycle and the p50/p99
// time Lock took.
func BenchmarkMutex_uncontended(b *testing.B) {
	c := redistest.StartServer(b).Client(b)
	counter := redistest.CountCommands(c)
	m := reentrant.New(redistest.Lockkit(b, c), redistest.Unique(b), lockkit.WithLease(time.Minute))
	redistest.BenchLockUnlock(b, m, counter)
}

// BenchmarkMutex_uncontended_deadline is BenchmarkMutex_uncontended with a
// ctx that has a deadline: each call's request runs in a goroutine of the
// Client (see lockkit.Client.Go), so that the call can return at the
// deadline even when the server stopped answering.
func BenchmarkMutex_uncontended_deadline(b *testing.B) {
	c := redistest.StartServer(b).Client(b)
	counter := redistest.CountCommands(c)
	m := reentrant.New(redistest.Lockkit(b, c), redistest.Unique(b), lockkit.WithLease(time.Minute))
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	redistest.BenchLockUnlockCtx(b, ctx, m, counter)
}

// BenchmarkFloor_uncontended measures the floor of BenchmarkMutex_uncontended
// on the same machine: two round trips of the script "return 1" per cycle
// (redistest.Floor).
func BenchmarkFloor_uncontended(b *testing.B) {
	c := redistest.StartServer(b).Client(b)
	redistest.BenchLockUnlock(b, redistest.Floor{C: c}, redistest.CountCommands(c))
}

// BenchmarkMutex_contended runs 64 goroutines, each its own owner, locking
// one key and holding it for hold. It reports acquisitions per second,
// commands sent per acquisition and the p50/p99 wait for Lock.
func BenchmarkMutex_contended(b *testing.B) {
	for _, hold := range []time.Duration{0, time.Millisecond} {
		b.Run(fmt.Sprintf("G=64/hold=%v", hold), func(b *testing.B) {
			c := redistest.StartServer(b).Client(b)
			counter := redistest.CountCommands(c)
			lc := redistest.Lockkit(b, c)
			name := redistest.Unique(b)
			waits := redistest.BenchContended(b, 64, hold, func() redistest.Locker { return reentrant.New(lc, name) }, counter)
			redistest.ReportWaits(b, waits)
		})
	}
}

// BenchmarkMutex_localHandoff runs 64 goroutines of one Client, each its
// own owner, locking one key with hold 0, without and with cohort mode
// (WithLocalHandoff). It reports acquisitions per second, commands sent
// per acquisition, the p50/p99 wait for Lock and allocations.
func BenchmarkMutex_localHandoff(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts []lockkit.Option
	}{
		{"without", nil},
		{"with", []lockkit.Option{reentrant.WithLocalHandoff(64, 10*time.Millisecond)}},
	} {
		b.Run(fmt.Sprintf("G=64/hold=0/%s", tc.name), func(b *testing.B) {
			c := redistest.StartServer(b).Client(b)
			counter := redistest.CountCommands(c)
			lc := redistest.Lockkit(b, c)
			name := redistest.Unique(b)
			waits := redistest.BenchContended(b, 64, 0, func() redistest.Locker { return reentrant.New(lc, name, tc.opts...) }, counter)
			redistest.ReportWaits(b, waits)
		})
	}
}
