package rwlock_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
)

// TestConformance runs the contract of every exclusive lock (re-entry,
// ErrNotHeld, tokens, leases, loss, WithOwner, retried Unlock, bad input,
// ctx deadlines) on the write side of the read-write lock.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Of("rwlock", rwlock.New))
}

// The shared options and bad input of every kind are tested by the
// conformance suite; these are the cases of rwlock's own option and of its
// read side.

// calls are every method of m that checks its input, by name.
func calls(ctx context.Context, m *rwlock.RWMutex) map[string]func() error {
	return map[string]func() error{
		"Lock":            func() error { return m.Lock(ctx) },
		"TryLock":         func() error { _, err := m.TryLock(ctx); return err },
		"Unlock":          func() error { return m.Unlock(ctx) },
		"RLock":           func() error { return m.RLock(ctx) },
		"TryRLock":        func() error { _, err := m.TryRLock(ctx); return err },
		"RUnlock":         func() error { return m.RUnlock(ctx) },
		"RLocker.Lock":    func() error { return m.RLocker().Lock(ctx) },
		"RLocker.TryLock": func() error { _, err := m.RLocker().TryLock(ctx); return err },
		"RLocker.Unlock":  func() error { return m.RLocker().Unlock(ctx) },
		"ForceUnlock":     func() error { _, err := m.ForceUnlock(ctx); return err },
		"State":           func() error { _, err := m.State(ctx); return err },
		"Mode":            func() error { _, err := m.Mode(ctx); return err },
		"IsLocked":        func() error { _, err := m.IsLocked(ctx); return err },
		"Readers":         func() error { _, err := m.Readers(ctx); return err },
		"HoldCount":       func() error { _, err := m.HoldCount(ctx); return err },
		"RHoldCount":      func() error { _, err := m.RHoldCount(ctx); return err },
		"TTL":             func() error { _, err := m.TTL(ctx); return err },
	}
}

func TestNew_bad_input_returns_ErrInvalid_and_writes_nothing(t *testing.T) {
	mr, rc := redistest.Mini(t)
	counter := redistest.CountCommands(rc)
	c := redistest.Lockkit(t, rc)
	var nilCtx context.Context

	cases := []struct {
		name string
		m    *rwlock.RWMutex
		ctx  context.Context
		says string // the error names the culprit
	}{
		{"nil RWMutex", nil, t.Context(), "nil or zero"},
		{"zero RWMutex", &rwlock.RWMutex{}, t.Context(), "nil or zero"},
		{"nil context", rwlock.New(c, "x"), nilCtx, "nil context"},
		{"option of another kind", rwlock.New(c, "x", spin.WithBackoff(time.Millisecond, time.Second)), t.Context(), "WithBackoff"},
		{"first bad option of several", rwlock.New(c, "x", rwlock.WithWriterPreference(false),
			spin.WithBackoff(time.Millisecond, time.Second), lockkit.WithLease(0)), t.Context(), "WithBackoff"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for call, f := range calls(tc.ctx, tc.m) {
				err := f()
				if !errors.Is(err, lockkit.ErrInvalid) {
					t.Fatalf("%s = %v, want ErrInvalid", call, err)
				}
				if !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("%s error %q does not mention %q", call, err, tc.says)
				}
			}
			if tc.m.Token() != 0 || tc.m.RToken() != 0 || tc.m.Lost() != nil || tc.m.RLost() != nil {
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

func TestWithWriterPreference_applies_to_rwlocks_only(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := redistest.Lockkit(t, rc)
	m := reentrant.New(c, redistest.Unique(t), rwlock.WithWriterPreference(false))
	err := m.Lock(redistest.Ctx(t, waitTimeout))
	if !errors.Is(err, lockkit.ErrInvalid) || !strings.Contains(err.Error(), "WithWriterPreference") {
		t.Fatalf("reentrant lock with WithWriterPreference: Lock = %v, want ErrInvalid naming the option", err)
	}
}
