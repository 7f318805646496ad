package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// connectedClients returns how many client connections the server of
// admin has, admin's own included.
func connectedClients(t *testing.T, admin *redis.Client) int64 {
	t.Helper()
	info, err := admin.InfoMap(redistest.Ctx(t, 5*time.Second), "clients").Result()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, section := range info {
		if v, ok := section["connected_clients"]; ok {
			n = atoi(t, v)
		}
	}
	return n
}

// atoi parses s, failing the test if it is not a number.
func atoi(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = 10*n + int64(r-'0')
	}
	return n
}

// TestLeave_closes_the_connection_after_Subscribes_abandoned_while_the_server_did_not_answer
// checks the promise of New that the pub/sub connection is closed once no
// channel is left, after this: two Subscribes give up (their ctx ends)
// while the connection is being opened to a server that does not answer,
// so the subscribe of one is on its way and the other's waits to be sent,
// and two new Subscribes to the same channels come before the server
// answers again. Both new Subscribes are confirmed, and once they left the
// connection is closed. The old code sent the abandoned subscribe for the
// new waiter of its channel, which sent its own as well: that channel was
// counted twice on the connection, which stayed open with no channel.
func TestLeave_closes_the_connection_after_Subscribes_abandoned_while_the_server_did_not_answer(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := srv.Client(t)
	proxy := redistest.StartProxy(t, srv.Addr())
	// The handshake of the connection waits for the Heal, not for a read
	// timeout.
	c := redis.NewClient(&redis.Options{Addr: proxy.Addr(), ReadTimeout: redistest.Hang})
	t.Cleanup(func() { _ = c.Close() })
	n := newNotifier(t, c)
	chs := []string{redistest.Unique(t), redistest.Unique(t)}
	before := connectedClients(t, admin)

	proxy.Cut()
	ctx, giveUp := context.WithCancel(redistest.Ctx(t, redistest.Hang))
	var abandoned []<-chan error
	for _, ch := range chs {
		abandoned = append(abandoned, subscribeAsync(ctx, n, ch))
	}
	redistest.Eventually(t, 10*time.Second, "the pub/sub connection to be opened", func() bool {
		return connectedClients(t, admin) > before
	})
	giveUp()
	for _, got := range abandoned {
		if err := redistest.Receive(t, got, 10*time.Second, "the abandoned Subscribe to return"); err != context.Canceled {
			t.Fatalf("abandoned Subscribe = %v, want context.Canceled", err)
		}
	}
	var again []<-chan error
	for _, ch := range chs {
		again = append(again, subscribeAsync(redistest.Ctx(t, redistest.Hang), n, ch))
	}
	redistest.Eventually(t, 10*time.Second, "the new Subscribes to join", func() bool {
		return n.Waiters(chs[0]) == 1 && n.Waiters(chs[1]) == 1
	})
	proxy.Heal()
	for _, got := range again {
		if err := redistest.Receive(t, got, redistest.Hang, "the new Subscribe to be confirmed"); err != nil {
			t.Fatalf("Subscribe once the server answers = %v", err)
		}
	}
	redistest.Eventually(t, 10*time.Second, "the pub/sub connection to be closed with no channel left", func() bool {
		return n.Channels() == 0 && connectedClients(t, admin) == before
	})
}
