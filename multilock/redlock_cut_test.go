package multilock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// cutNodes starts three masters, each behind a Proxy, and returns a client
// of each server that bypasses the proxies (to look at the nodes), a
// lockkit Client of each through its proxy, the proxies and a fresh lock
// name. The proxied go-redis clients wait a minute to dial, read and
// write, so that only the node timeout bounds a request to a cut node.
// Every proxy is healed before the Clients are closed, so that the
// requests left behind finish.
func cutNodes(t *testing.T) (direct []redis.UniversalClient, lcs []*lockkit.Client, proxies []*redistest.Proxy, name string) {
	t.Helper()
	servers, direct := masters(t, 3)
	proxied := make([]redis.UniversalClient, len(servers))
	for i, s := range servers {
		p := redistest.StartProxy(t, s.Addr())
		proxies = append(proxies, p)
		c := redis.NewClient(&redis.Options{Addr: p.Addr(), DialTimeout: time.Minute, ReadTimeout: time.Minute, WriteTimeout: time.Minute})
		t.Cleanup(func() { _ = c.Close() })
		proxied[i] = c
	}
	lcs = lockkits(t, proxied)
	t.Cleanup(func() {
		for _, p := range proxies {
			p.Heal()
		}
	})
	return direct, lcs, proxies, redistest.Unique(t)
}

// TestRedLock_network_cut_to_a_minority_of_nodes_still_locks: with the
// network to one node of three cut, Lock takes the lock on the other two
// within the node timeout, and Unlock frees them; once the network is
// back, the acquire the cut node got late is undone, and the lock is free
// on every node.
func TestRedLock_network_cut_to_a_minority_of_nodes_still_locks(t *testing.T) {
	direct, lcs, proxies, name := cutNodes(t)
	r := multilock.NewRedLock(lcs, name, multilock.WithNodeTimeout(100*time.Millisecond))
	openConnections(t, r)
	proxies[2].Cut()
	redistest.MustLock(t, r)
	if n := holders(t, direct[:2], name); n != 2 {
		t.Fatalf("%d of the two nodes not cut off hold the lock, want 2", n)
	}
	redistest.MustUnlock(t, r)
	proxies[2].Heal()
	for _, c := range direct {
		givenBack(t, c, name)
	}
}

// TestRedLock_network_cut_to_a_majority_while_held_is_lost: the network to
// two nodes of three is cut while r holds the lock: their parts cannot be
// renewed, so the lost channel closes, Unlock reports ErrLost, and once
// the network is back the lock can be taken again.
func TestRedLock_network_cut_to_a_majority_while_held_is_lost(t *testing.T) {
	direct, lcs, proxies, name := cutNodes(t)
	r := multilock.NewRedLock(lcs, name, multilock.WithNodeTimeout(100*time.Millisecond),
		lockkit.WithWatchdogTimeout(time.Second))
	redistest.MustLock(t, r)
	proxies[1].Cut()
	proxies[2].Cut()
	redistest.Receive(t, r.Lost(), redistest.Hang, "the lost channel to close with two nodes cut off")
	redistest.WantErr(t, r.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost)
	redistest.WantErr(t, r.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrNotHeld)
	proxies[1].Heal()
	proxies[2].Heal()
	for _, c := range direct {
		waitFreeOn(t, c, name, "the parts of the lost hold to be gone")
	}
	redistest.MustLock(t, r)
	redistest.MustUnlock(t, r)
	for _, c := range direct {
		givenBack(t, c, name)
	}
}

// TestRedLock_Unlock_with_the_network_cut_to_a_majority_is_settled_after_heal:
// the network to two nodes of three is cut when r unlocks: Unlock returns
// within the node timeout, not the minute the go-redis clients would
// wait, with the nodes' errors, and r keeps the hold; once the network is
// back, Unlock called again settles it without a loss, and the lock is
// free on every node.
func TestRedLock_Unlock_with_the_network_cut_to_a_majority_is_settled_after_heal(t *testing.T) {
	direct, lcs, proxies, name := cutNodes(t)
	r := multilock.NewRedLock(lcs, name, multilock.WithNodeTimeout(100*time.Millisecond))
	redistest.MustLock(t, r)
	token := r.Token()
	proxies[1].Cut()
	proxies[2].Cut()
	done := make(chan error, 1)
	go func() { done <- r.Unlock(redistest.Ctx(t, redistest.Hang)) }()
	err := redistest.Receive(t, done, redistest.Hang, "Unlock with two nodes cut off")
	if err == nil || errors.Is(err, lockkit.ErrLost) || errors.Is(err, lockkit.ErrNotHeld) {
		t.Fatalf("Unlock with two nodes cut off = %v; want the nodes' errors", err)
	}
	if r.Token() != token {
		t.Fatalf("Token() = %d after an unsettled Unlock, want %d", r.Token(), token)
	}
	redistest.NotYet(t, r.Lost(), "the lost channel closed after an Unlock in doubt")
	proxies[1].Heal()
	proxies[2].Heal()
	redistest.MustUnlock(t, r)
	redistest.WantErr(t, r.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrNotHeld)
	for _, c := range direct {
		givenBack(t, c, name)
	}
}

// TestRedLock_Lock_with_the_network_cut_to_a_majority_fails_at_its_deadline:
// with the network to two nodes of three cut, Lock keeps trying until its
// ctx ends and then fails with ErrNotObtained, DeadlineExceeded and
// ErrQuorum, and TryLock fails at once with ErrQuorum; r holds nothing.
// Once the network is back, the acquires the cut nodes got late are
// undone, and the lock is free on every node.
func TestRedLock_Lock_with_the_network_cut_to_a_majority_fails_at_its_deadline(t *testing.T) {
	direct, lcs, proxies, name := cutNodes(t)
	r := multilock.NewRedLock(lcs, name, multilock.WithNodeTimeout(100*time.Millisecond))
	openConnections(t, r)
	proxies[1].Cut()
	proxies[2].Cut()
	err := r.Lock(redistest.Ctx(t, 500*time.Millisecond))
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded, lockkit.ErrQuorum)
	wantTryLockFails(t, r, lockkit.ErrQuorum, "1 of 3 nodes answered")
	redistest.AssertClean(t, direct[0], name)
	proxies[1].Heal()
	proxies[2].Heal()
	for _, c := range direct {
		givenBack(t, c, name)
	}
	redistest.MustLock(t, r)
	redistest.MustUnlock(t, r)
	assertCleanAll(t, direct, name)
}
