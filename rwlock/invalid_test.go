package rwlock_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

func TestNew_bad_input_returns_ErrInvalid_and_writes_nothing(t *testing.T) {
	mr, good := redistest.Mini(t)
	counter := redistest.CountCommands(good)
	var typedNil *redis.Client

	cases := []struct {
		name   string
		client redis.UniversalClient
		lock   string
		opts   []rwlock.Option
		says   string // the error names the culprit
	}{
		{"nil client", nil, "x", nil, "client"},
		{"typed nil client", typedNil, "x", nil, "client"},
		{"empty name", good, "", nil, "name"},
		{"zero lease", good, "x", []rwlock.Option{rwlock.WithLease(0)}, "WithLease"},
		{"negative lease", good, "x", []rwlock.Option{rwlock.WithLease(-time.Second)}, "WithLease"},
		{"tiny watchdog timeout", good, "x", []rwlock.Option{rwlock.WithWatchdogTimeout(time.Millisecond)}, "WithWatchdogTimeout"},
		{"empty owner", good, "x", []rwlock.Option{rwlock.WithOwner("")}, "WithOwner"},
		{"reserved owner", good, "x", []rwlock.Option{rwlock.WithOwner(":mode")}, "WithOwner"},
		{"empty prefix", good, "x", []rwlock.Option{rwlock.WithPrefix("")}, "WithPrefix"},
		{"prefix with a brace", good, "x", []rwlock.Option{rwlock.WithPrefix("a{b")}, "WithPrefix"},
		{"nil option", good, "x", []rwlock.Option{nil}, "nil Option"},
		{"first bad option of several", good, "x",
			[]rwlock.Option{rwlock.WithWriterPreference(false), rwlock.WithPrefix("}"), rwlock.WithLease(0)}, "WithPrefix"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := rwlock.New(tc.client, tc.lock, tc.opts...)
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			calls := map[string]func() error{
				"Lock":         func() error { return m.Lock(ctx) },
				"TryLock":      func() error { _, err := m.TryLock(ctx); return err },
				"Unlock":       func() error { return m.Unlock(ctx) },
				"RLock":        func() error { return m.RLock(ctx) },
				"TryRLock":     func() error { _, err := m.TryRLock(ctx); return err },
				"RUnlock":      func() error { return m.RUnlock(ctx) },
				"RLocker.Lock": func() error { return m.RLocker().Lock(ctx) },
				"ForceUnlock":  func() error { _, err := m.ForceUnlock(ctx); return err },
				"State":        func() error { _, err := m.State(ctx); return err },
				"Mode":         func() error { _, err := m.Mode(ctx); return err },
				"IsLocked":     func() error { _, err := m.IsLocked(ctx); return err },
				"Readers":      func() error { _, err := m.Readers(ctx); return err },
				"HoldCount":    func() error { _, err := m.HoldCount(ctx); return err },
				"RHoldCount":   func() error { _, err := m.RHoldCount(ctx); return err },
				"TTL":          func() error { _, err := m.TTL(ctx); return err },
			}
			for call, f := range calls {
				err := f()
				if !errors.Is(err, rwlock.ErrInvalid) {
					t.Fatalf("%s = %v, want ErrInvalid", call, err)
				}
				if !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("%s error %q does not mention %q", call, err, tc.says)
				}
			}
			if m.Token() != 0 || m.RToken() != 0 || m.Lost() != nil || m.RLost() != nil {
				t.Fatal("an invalid RWMutex reports a hold")
			}
			if n := counter.Total(); n != 0 {
				t.Fatalf("%d commands sent to Redis, want none", n)
			}
			if keys := mr.Keys(); len(keys) != 0 {
				t.Fatalf("keys written: %q", keys)
			}
		})
	}
}
