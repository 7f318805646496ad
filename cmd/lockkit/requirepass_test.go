package main

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// heldBehindPassword starts a server that requires password and takes a
// reentrant lock on it, as holdVia does, through a client that gives the
// password. It returns the server, the lock and its prefix.
func heldBehindPassword(t *testing.T, password string) (*redistest.Server, *reentrant.Mutex, string) {
	t.Helper()
	s := redistest.StartServer(t)
	// The server's own client stays authenticated: CONFIG SET requirepass
	// does not log out the connection that sends it.
	if err := s.Client(t).ConfigSet(redistest.Ctx(t, 5*time.Second), "requirepass", password).Err(); err != nil {
		t.Fatal(err)
	}
	m, prefix := holdVia(t, &redis.Options{Addr: s.Addr(), Password: password})
	return s, m, prefix
}
