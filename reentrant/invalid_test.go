package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestQueries_of_an_invalid_Mutex_return_ErrInvalid: New promises that
// invalid arguments make every method return an error matching
// ErrInvalid; the queries and ForceUnlock keep it as Lock, TryLock and
// Unlock do (checked by the conformance suite), for a Mutex made with bad
// arguments, one not made by New, and a nil ctx, sending nothing. Such a
// Mutex holds nothing: no token, no lost signal, an ended Context.
func TestQueries_of_an_invalid_Mutex_return_ErrInvalid(t *testing.T) {
	lc, _ := redistest.Silent(t)
	ctx := redistest.Ctx(t, 10*time.Second)
	var nilMutex *reentrant.Mutex
	for _, tc := range []struct {
		name string
		m    *reentrant.Mutex
		ctx  context.Context
		want string
	}{
		{"nil client", reentrant.New(nil, "a"), ctx, "client"},
		{"empty name", reentrant.New(lc, ""), ctx, "name"},
		{"bad lease", reentrant.New(lc, "a", lockkit.WithLease(0)), ctx, "WithLease"},
		{"cohort mode with an owner", reentrant.New(lc, "a", handoff, lockkit.WithOwner("job")), ctx, "WithOwner"},
		{"zero Mutex", new(reentrant.Mutex), ctx, "New"},
		{"nil Mutex", nilMutex, ctx, "New"},
		{"nil ctx", reentrant.New(lc, "a"), nil, "nil"},
		{"nil ctx in cohort mode", reentrant.New(lc, "a", handoff), nil, "nil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ctx := tc.m, tc.ctx
			_, err := m.IsLocked(ctx)
			redistest.WantInvalid(t, "IsLocked", err, tc.want)
			_, err = m.HoldCount(ctx)
			redistest.WantInvalid(t, "HoldCount", err, tc.want)
			_, err = m.TTL(ctx)
			redistest.WantInvalid(t, "TTL", err, tc.want)
			ok, err := m.ForceUnlock(ctx)
			redistest.WantInvalid(t, "ForceUnlock", err, tc.want)
			if ok {
				t.Error("ForceUnlock reported a hold removed")
			}
			if m.Token() != 0 || m.Lost() != nil {
				t.Errorf("Token = %d, Lost = %v; want 0 and nil", m.Token(), m.Lost())
			}
			redistest.WantErr(t, context.Cause(m.Context(context.Background())), lockkit.ErrNotHeld)
		})
	}
}
