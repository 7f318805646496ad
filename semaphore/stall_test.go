package semaphore_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestEvery_call_returns_by_its_deadline_against_a_stalled_server stalls
// a real server and makes every call of a semaphore at once, each with a
// short ctx: each returns by then with the ctx's error, as the README
// promises, Release included (which also runs past an ended ctx, but
// only for a short clean-up time).
func TestEvery_call_returns_by_its_deadline_against_a_stalled_server(t *testing.T) {
	srv := redistest.StartServer(t)
	s := semaphore.New(redistest.Lockkit(t, srv.Client(t)), redistest.Unique(t), 2)
	p := mustAcquire(t, s, 1)
	calls := map[string]func(context.Context) error{
		"Acquire":    func(ctx context.Context) error { _, err := s.Acquire(ctx, 2); return err },
		"TryAcquire": func(ctx context.Context) error { _, err := s.TryAcquire(ctx, 1); return err },
		"Release":    func(ctx context.Context) error { return p.Release(ctx) },
		"SetPermits": func(ctx context.Context) error { return s.SetPermits(ctx, 2) },
		"Available":  func(ctx context.Context) error { _, err := s.Available(ctx); return err },
		"Holders":    func(ctx context.Context) error { _, err := s.Holders(ctx); return err },
		"Permits":    func(ctx context.Context) error { _, err := s.Permits(ctx); return err },
	}
	srv.Stall(t, 3*time.Second)
	redistest.WantDeadlines(t, 200*time.Millisecond, calls)
}
