package faultkit

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// CallBound bounds a call or a wait expected to end: reaching it means a
// hang.
const CallBound = 10 * time.Second

// Owner is one owner of a lock as the tests drive it.
type Owner struct {
	lockkit.Locker
	// Parts are the locks whose holds a Lock takes: the members of a
	// multi-lock, else the owner itself; each has a lost signal and a
	// token.
	Parts []redistest.Held
	// Force frees the lock whoever holds it (the kind's ForceUnlock); nil
	// for a kind without one.
	Force func(ctx context.Context) (bool, error)
}

// Lost returns the lost signals of the current holds; call it after Lock.
func (o Owner) Lost() []<-chan struct{} { return redistest.LostOf(o.Parts) }

// Tokens returns the fencing tokens of the current holds, part by part.
func (o Owner) Tokens() []int64 { return redistest.TokensOf(o.Parts) }

// MustLock locks o within CallBound, failing the test otherwise.
func MustLock(t testing.TB, o Owner) {
	t.Helper()
	if err := o.Lock(redistest.Ctx(t, CallBound)); err != nil {
		t.Fatalf("Lock: %v", err)
	}
}

// MustUnlock unlocks o within CallBound, failing the test otherwise.
func MustUnlock(t testing.TB, o Owner) {
	t.Helper()
	if err := o.Unlock(redistest.Ctx(t, CallBound)); err != nil {
		t.Fatalf("Unlock: %v", err)
	}
}
