package redistest

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

// queueLock is a minimal mutual exclusion for testing the harness: the
// lock is a single element in a Redis list, taken with BLPOP and given
// back with RPUSH, and every hold draws a token from INCR. newQueueLock
// puts the element in place.
type queueLock struct {
	c     redis.UniversalClient
	name  string
	token int64
}

func queueKey(name string) string { return "queue:{" + name + "}" }

// newQueueLock starts a miniredis, creates a queue lock there and returns
// a client of the server and the lock's name.
func newQueueLock(t testing.TB) (*redis.Client, string) {
	t.Helper()
	_, c := Mini(t)
	name := Unique(t)
	if err := c.RPush(Ctx(t, queryTimeout), queueKey(name), "x").Err(); err != nil {
		t.Fatal(err)
	}
	return c, name
}

func (l *queueLock) Lock(ctx context.Context) error {
	if err := l.c.BLPop(ctx, 0, queueKey(l.name)).Err(); err != nil {
		return err
	}
	tok, err := l.c.Incr(ctx, "fence:{"+l.name+"}").Result()
	l.token = tok
	return err
}

func (l *queueLock) Unlock(ctx context.Context) error {
	return l.c.RPush(ctx, queueKey(l.name), "x").Err()
}

func (l *queueLock) Token() int64 { return l.token }

// noLock excludes nobody, and its token never grows.
type noLock struct{}

func (noLock) Lock(context.Context) error   { return nil }
func (noLock) Unlock(context.Context) error { return nil }
func (noLock) Token() int64                 { return 1 }
