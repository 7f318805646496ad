package lua_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// listen subscribes to the own channel of process proc.
func (l *procsLock) listen(proc string) *redis.PubSub {
	l.t.Helper()
	ps := l.c.Subscribe(context.Background(), l.ch+":"+proc)
	if _, err := ps.Receive(context.Background()); err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(func() { _ = ps.Close() })
	return ps
}

// wantMessage waits for the next message on ps and checks it.
func wantMessage(t *testing.T, ps *redis.PubSub, payload string) {
	t.Helper()
	m := redistest.Receive(t, ps.Channel(), 5*time.Second, "a wake-up")
	if m.Payload != payload {
		t.Fatalf("message %q, want %q", m.Payload, payload)
	}
}

// wantQuiet checks that ps received nothing (a message already published
// is delivered well within the bound). It reads ps's Channel, as
// wantMessage does: a PubSub is read one way only.
func wantQuiet(t *testing.T, ps *redis.PubSub) {
	t.Helper()
	select {
	case m := <-ps.Channel():
		t.Fatalf("unexpected message %v", m)
	case <-time.After(100 * time.Millisecond):
	}
}
