package latch_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestEvery_call_returns_by_its_deadline_against_a_stalled_server stalls
// a real server and makes every call of a latch at once, each with a
// short ctx: each returns by then with the ctx's error.
func TestEvery_call_returns_by_its_deadline_against_a_stalled_server(t *testing.T) {
	srv := redistest.StartServer(t)
	l := latch.New(redistest.Lockkit(t, srv.Client(t)), redistest.Unique(t), 2)
	calls := map[string]func(context.Context) error{
		"CountDown": func(ctx context.Context) error { _, err := l.CountDown(ctx); return err },
		"Count":     func(ctx context.Context) error { _, err := l.Count(ctx); return err },
		"Await":     l.Await,
	}
	srv.Stall(t, 3*time.Second)
	redistest.WantDeadlines(t, 200*time.Millisecond, calls)
}
