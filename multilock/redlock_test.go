package multilock_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// masters starts n independent servers and returns them with a client for
// each.
func masters(t testing.TB, n int) ([]*redistest.Server, []redis.UniversalClient) {
	t.Helper()
	servers := redistest.StartMasters(t, n)
	clients := make([]redis.UniversalClient, n)
	for i, s := range servers {
		clients[i] = s.Client(t)
	}
	return servers, clients
}

// holders returns how many of clients hold lock name.
func holders(t *testing.T, clients []redis.UniversalClient, name string) int {
	t.Helper()
	n := 0
	for _, c := range clients {
		if c.Exists(context.Background(), lockKey(name)).Val() == 1 {
			n++
		}
	}
	return n
}

func assertCleanAll(t *testing.T, clients []redis.UniversalClient, name string) {
	t.Helper()
	for _, c := range clients {
		redistest.AssertClean(t, c, name)
	}
}

func TestNewRedLock_invalid_arguments_return_ErrInvalid(t *testing.T) {
	_, c1 := redistest.Mini(t)
	_, c2 := redistest.Mini(t)
	var typedNil *redis.Client
	same := redis.NewClient(&redis.Options{Addr: c1.Options().Addr})
	t.Cleanup(func() { _ = same.Close() })
	cases := []struct {
		name    string
		clients []redis.UniversalClient
		lock    string
		opts    []multilock.RedLockOption
	}{
		{"no clients", nil, "x", nil},
		{"nil client", []redis.UniversalClient{c1, nil}, "x", nil},
		{"typed nil client", []redis.UniversalClient{c1, typedNil}, "x", nil},
		{"same client twice", []redis.UniversalClient{c1, c2, c1}, "x", nil},
		{"same server twice", []redis.UniversalClient{c1, c2, same}, "x", nil},
		{"empty name", []redis.UniversalClient{c1, c2}, "", nil},
		{"zero lease", []redis.UniversalClient{c1}, "x", []multilock.RedLockOption{multilock.WithLease(0)}},
		{"zero node timeout", []redis.UniversalClient{c1}, "x", []multilock.RedLockOption{multilock.WithNodeTimeout(0)}},
		{"negative drift", []redis.UniversalClient{c1}, "x", []multilock.RedLockOption{multilock.WithDriftFactor(-0.1)}},
		{"huge drift", []redis.UniversalClient{c1}, "x", []multilock.RedLockOption{multilock.WithDriftFactor(0.5)}},
		{"reserved owner", []redis.UniversalClient{c1}, "x", []multilock.RedLockOption{multilock.WithOwner(":x")}},
		{"braced prefix", []redis.UniversalClient{c1}, "x", []multilock.RedLockOption{multilock.WithPrefix("{p}")}},
		{"tiny watchdog timeout", []redis.UniversalClient{c1}, "x", []multilock.RedLockOption{multilock.WithWatchdogTimeout(time.Millisecond)}},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := multilock.NewRedLock(tc.clients, tc.lock, tc.opts...)
			redistest.WantErr(t, r.Lock(ctx), multilock.ErrInvalid)
			_, err := r.TryLock(ctx)
			redistest.WantErr(t, err, multilock.ErrInvalid)
			redistest.WantErr(t, r.Unlock(ctx), multilock.ErrInvalid)
			if r.Token() != 0 || r.Lost() != nil {
				t.Fatal("an invalid RedLock reports a hold")
			}
		})
	}
}

func TestRedLock_holds_on_every_node_reenters_and_frees(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	_, clients := masters(t, 5)
	name := redistest.Unique(t)
	r := multilock.NewRedLock(clients, name)
	if r.Quorum() != 3 {
		t.Fatalf("Quorum() = %d for 5 nodes", r.Quorum())
	}
	redistest.MustLock(t, r)
	if n := holders(t, clients, name); n != 5 {
		t.Fatalf("%d nodes hold the lock, want 5", n)
	}
	for i, c := range clients {
		if ttl := c.PTTL(ctx, lockKey(name)).Val(); ttl <= 0 || ttl > 30*time.Second {
			t.Fatalf("node %d: lease %v, want up to 30s", i, ttl)
		}
	}
	token := r.Token()
	if token <= 0 {
		t.Fatalf("Token() = %d", token)
	}
	if ok, err := r.TryLock(ctx); !ok || err != nil {
		t.Fatalf("re-entering TryLock = %v, %v", ok, err)
	}
	redistest.MustLock(t, r)
	if r.Token() != token {
		t.Fatalf("re-entry changed the token from %d to %d", token, r.Token())
	}
	other := multilock.NewRedLock(clients, name)
	if ok, err := other.TryLock(ctx); ok || err != nil {
		t.Fatalf("another owner's TryLock = %v, %v", ok, err)
	}
	for i := range 3 {
		if err := r.Unlock(ctx); err != nil {
			t.Fatalf("Unlock %d: %v", i, err)
		}
		if want := 5 * min(1, 2-i); holders(t, clients, name) != want {
			t.Fatalf("after Unlock %d, %d nodes hold the lock, want %d", i, holders(t, clients, name), want)
		}
	}
	redistest.WantErr(t, r.Unlock(ctx), multilock.ErrNotHeld)
	assertCleanAll(t, clients, name)

	redistest.MustLock(t, other)
	if other.Token() <= token {
		t.Fatalf("the next hold's token %d is not above %d", other.Token(), token)
	}
	redistest.MustUnlock(t, other)
	assertCleanAll(t, clients, name)
}

// TestRedLock_two_nodes_down_still_acquires_and_excludes kills two of five
// masters: three still make a majority.
func TestRedLock_two_nodes_down_still_acquires_and_excludes(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	servers, clients := masters(t, 5)
	servers[1].Kill(t)
	servers[3].Kill(t)
	name := redistest.Unique(t)
	a, b := multilock.NewRedLock(clients, name), multilock.NewRedLock(clients, name)
	redistest.MustLock(t, a)
	if ok, err := b.TryLock(ctx); ok || err != nil {
		t.Fatalf("b.TryLock = %v, %v; want false, nil", ok, err)
	}
	err := b.Lock(redistest.Ctx(t, 200*time.Millisecond))
	redistest.WantErr(t, err, multilock.ErrNotObtained, context.DeadlineExceeded)
	if strings.Contains(err.Error(), "quorum") {
		t.Fatalf("b.Lock = %v; three nodes answered, so no quorum failure", err)
	}
	redistest.MustUnlock(t, a)
	redistest.MustLock(t, b)
	redistest.MustUnlock(t, b)
	live := []redis.UniversalClient{clients[0], clients[2], clients[4]}
	assertCleanAll(t, live, name)
}

// TestRedLock_three_nodes_down_fails_with_quorum_error kills three of five
// masters: no majority can answer.
func TestRedLock_three_nodes_down_fails_with_quorum_error(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	servers, clients := masters(t, 5)
	for _, i := range []int{0, 2, 4} {
		servers[i].Kill(t)
	}
	name := redistest.Unique(t)
	r := multilock.NewRedLock(clients, name)
	err := r.Lock(redistest.Ctx(t, 300*time.Millisecond))
	redistest.WantErr(t, err, multilock.ErrNotObtained, context.DeadlineExceeded, multilock.ErrQuorum)
	if !strings.Contains(err.Error(), "2 of 5 nodes answered, 3 needed") {
		t.Fatalf("error %q does not say how many nodes answered", err)
	}
	t.Logf("Lock: %v", err)

	ok, err := r.TryLock(ctx)
	if ok {
		t.Fatal("TryLock succeeded with 2 of 5 nodes")
	}
	redistest.WantErr(t, err, multilock.ErrQuorum)
	if !strings.Contains(err.Error(), "2 of 5 nodes answered") {
		t.Fatalf("error %q does not say how many nodes answered", err)
	}
	if r.Token() != 0 || r.Lost() != nil {
		t.Fatal("a failed Lock left a hold")
	}
	assertCleanAll(t, []redis.UniversalClient{clients[1], clients[3]}, name)
}

// TestRedLock_restarted_empty_node_admits_no_second_holder restarts nodes
// of a held lock without their data, one and then two more. With one
// restarted the lock is still held on four of five nodes: nobody else can
// take it and it is not lost. With three restarted it is held on two: the
// lost channel closes.
func TestRedLock_restarted_empty_node_admits_no_second_holder(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	servers, clients := masters(t, 5)
	renewals := make([]*renewalCounter, 5)
	for i, c := range clients {
		renewals[i] = &renewalCounter{}
		c.AddHook(renewals[i])
	}
	name := redistest.Unique(t)
	a := multilock.NewRedLock(clients, name, multilock.WithWatchdogTimeout(300*time.Millisecond))
	b := multilock.NewRedLock(clients, name)
	redistest.MustLock(t, a)
	lost := a.Lost()

	// restart restarts node i empty and waits until a's watchdog learnt
	// there that the hold is gone.
	restart := func(i int) {
		servers[i].Restart(t)
		redistest.Eventually(t, hang, "a renewal to find the hold gone", func() bool { return renewals[i].gone.Load() > 0 })
	}
	restart(2)
	if ok, err := b.TryLock(ctx); ok || err != nil {
		t.Fatalf("b.TryLock with one node restarted = %v, %v", ok, err)
	}
	redistest.WantErr(t, b.Lock(redistest.Ctx(t, 200*time.Millisecond)), multilock.ErrNotObtained, context.DeadlineExceeded)
	if holders(t, clients, name) != 4 {
		t.Fatalf("%d nodes hold the lock, want the 4 that kept their data", holders(t, clients, name))
	}
	select {
	case <-lost:
		t.Fatal("the lock counts as lost while 4 of 5 nodes hold it")
	default:
	}

	restart(0)
	restart(4)
	redistest.Receive(t, lost, hang, "the lost channel to close with 2 of 5 nodes holding the lock")
	redistest.WantErr(t, a.Unlock(ctx), multilock.ErrLost)
	redistest.MustLock(t, b)
	redistest.MustUnlock(t, b)
	assertCleanAll(t, clients, name)
}

// TestRedLock_tokens_increase_when_node_counters_disagree starts node 0's
// counter far ahead of the others. The first hold takes its token from node
// 0 and brings the others up to it; with node 0 gone, the next hold's
// token, minted by the others, is still larger.
func TestRedLock_tokens_increase_when_node_counters_disagree(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	servers, clients := masters(t, 3)
	name := redistest.Unique(t)
	fence := lockKey(name) + ":fence"
	if err := clients[0].Set(ctx, fence, 1000, 0).Err(); err != nil {
		t.Fatal(err)
	}
	a := multilock.NewRedLock(clients, name)
	redistest.MustLock(t, a)
	if a.Token() != 1001 {
		t.Fatalf("Token() = %d, want 1001 from node 0", a.Token())
	}
	for i, c := range clients {
		if n, err := c.Get(ctx, fence).Int(); n < 1001 || err != nil {
			t.Fatalf("node %d: counter %d, %v; want at least 1001", i, n, err)
		}
	}
	redistest.MustUnlock(t, a)
	servers[0].Kill(t)
	b := multilock.NewRedLock(clients, name)
	redistest.MustLock(t, b)
	if b.Token() <= 1001 {
		t.Fatalf("Token() = %d after a hold with token 1001", b.Token())
	}
	redistest.MustUnlock(t, b)
	assertCleanAll(t, clients[1:], name)
}

// TestRedLock_token_not_taken_by_quorum_fails_with_ErrQuorum: a quorum
// grants the lock, but the nodes whose counters lag never confirm taking
// its fencing token, so the round fails as a quorum failure, not as "too
// late", and leaves nothing held.
func TestRedLock_token_not_taken_by_quorum_fails_with_ErrQuorum(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	_, clients := masters(t, 3)
	name := redistest.Unique(t)
	if err := clients[0].Set(ctx, lockKey(name)+":fence", 1000, 0).Err(); err != nil {
		t.Fatal(err)
	}
	// The raise script is the only one sent with two keys and three
	// arguments: EVAL(SHA), script, 2, lock, fence, owner, token, new token.
	isRaise := func(cmd redis.Cmder) bool {
		return (cmd.Name() == "evalsha" || cmd.Name() == "eval") && len(cmd.Args()) == 8
	}
	for _, c := range clients[1:] {
		h := &redistest.DropReply{Match: isRaise}
		h.Arm()
		c.AddHook(h)
	}
	r := multilock.NewRedLock(clients, name)
	ok, err := r.TryLock(ctx)
	if ok || !errors.Is(err, multilock.ErrQuorum) || !strings.Contains(err.Error(), "took its fencing token") {
		t.Fatalf("TryLock = %v, %v; want false and ErrQuorum about the fencing token", ok, err)
	}
	if n := holders(t, clients, name); n != 0 {
		t.Fatalf("%d nodes still hold the lock after the failed round", n)
	}
}

// TestRedLock_takes_over_a_hold_its_owner_left_behind plants the hold an
// acquire whose reply was lost would leave on one node: Lock replaces it
// with a fresh token and Unlock frees it.
func TestRedLock_takes_over_a_hold_its_owner_left_behind(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	_, clients := masters(t, 3)
	name := redistest.Unique(t)
	if err := clients[1].HSet(ctx, lockKey(name), "job-7", 1, ":token", 77).Err(); err != nil {
		t.Fatal(err)
	}
	if err := clients[1].PExpire(ctx, lockKey(name), time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	r := multilock.NewRedLock(clients, name, multilock.WithOwner("job-7"))
	redistest.MustLock(t, r)
	if holders(t, clients, name) != 3 {
		t.Fatalf("%d nodes hold the lock, want 3", holders(t, clients, name))
	}
	if tok := clients[1].HGet(ctx, lockKey(name), ":token").Val(); tok == "77" {
		t.Fatal("node 1 kept the old hold's token")
	}
	redistest.MustUnlock(t, r)
	assertCleanAll(t, clients, name)
}

// TestRedLock_partial_round_releases_what_it_took has another owner hold
// three of five nodes; a round over all five gets two and gives them back.
func TestRedLock_partial_round_releases_what_it_took(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	_, clients := masters(t, 5)
	name := redistest.Unique(t)
	other := multilock.NewRedLock(clients[:3], name)
	redistest.MustLock(t, other)
	r := multilock.NewRedLock(clients, name)
	if ok, err := r.TryLock(ctx); ok || err != nil {
		t.Fatalf("TryLock = %v, %v; want false, nil", ok, err)
	}
	assertCleanAll(t, clients[3:], name)
	redistest.WantErr(t, r.Lock(redistest.Ctx(t, 200*time.Millisecond)), multilock.ErrNotObtained, context.DeadlineExceeded)
	assertCleanAll(t, clients[3:], name)
	redistest.MustUnlock(t, other)
	assertCleanAll(t, clients, name)
}

// renewalCounter counts the pipelined script calls (the watchdog's
// renewals) that found the hold gone.
type renewalCounter struct{ gone atomic.Int64 }

func (*renewalCounter) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (*renewalCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (r *renewalCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			if c, ok := c.(*redis.Cmd); ok && (c.Name() == "evalsha" || c.Name() == "eval") {
				if n, err := c.Int64(); err == nil && n == 0 {
					r.gone.Add(1)
				}
			}
		}
		return err
	}
}

// slowScripts delays every script a client sends by d.
type slowScripts struct{ d time.Duration }

func (slowScripts) DialHook(next redis.DialHook) redis.DialHook { return next }
func (s slowScripts) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); name == "evalsha" || name == "eval" {
			time.Sleep(s.d)
		}
		return next(ctx, cmd)
	}
}
func (slowScripts) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestRedLock_no_validity_left_means_not_acquired makes every node answer
// after 150 ms with a 100 ms lease: all of them grant the lock, but by then
// its validity has run out, so the round fails and frees every node.
func TestRedLock_no_validity_left_means_not_acquired(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	_, clients := masters(t, 3)
	for _, c := range clients {
		c.AddHook(slowScripts{150 * time.Millisecond})
	}
	name := redistest.Unique(t)
	r := multilock.NewRedLock(clients, name,
		multilock.WithLease(100*time.Millisecond), multilock.WithNodeTimeout(5*time.Second))
	ok, err := r.TryLock(ctx)
	if ok {
		t.Fatal("TryLock succeeded with no validity time left")
	}
	redistest.WantErr(t, err, multilock.ErrNotObtained)
	if !strings.Contains(err.Error(), "too late") {
		t.Fatalf("error %q does not say the validity ran out", err)
	}
	if r.Token() != 0 || r.Lost() != nil {
		t.Fatal("a failed round left a hold")
	}
	assertCleanAll(t, clients, name)
}

func TestRedLock_fixed_lease_is_lost_when_validity_ends(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	_, clients := masters(t, 3)
	name := redistest.Unique(t)
	r := multilock.NewRedLock(clients, name, multilock.WithLease(200*time.Millisecond))
	redistest.MustLock(t, r)
	redistest.Receive(t, r.Lost(), hang, "the lost channel to close when the validity ended")
	if r.Token() != 0 {
		t.Fatalf("Token() = %d for a lost hold", r.Token())
	}
	redistest.WantErr(t, r.Unlock(ctx), multilock.ErrLost)
	redistest.WantErr(t, r.Unlock(ctx), multilock.ErrNotHeld)
	redistest.Eventually(t, hang, "the nodes to expire the lease", func() bool { return holders(t, clients, name) == 0 })
	assertCleanAll(t, clients, name)
}

func TestRedLock_Lock_ctx_end_matches_both_errors(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	_, clients := masters(t, 3)
	name := redistest.Unique(t)
	a, b := multilock.NewRedLock(clients, name), multilock.NewRedLock(clients, name)
	redistest.MustLock(t, a)
	err := b.Lock(redistest.Ctx(t, 100*time.Millisecond))
	redistest.WantErr(t, err, multilock.ErrNotObtained, context.DeadlineExceeded)
	done, cancel := context.WithCancel(ctx)
	cancel()
	redistest.WantErr(t, b.Lock(done), multilock.ErrNotObtained, context.Canceled)
	redistest.MustUnlock(t, a)
	redistest.WantErr(t, b.Lock(done), multilock.ErrNotObtained, context.Canceled)
	assertCleanAll(t, clients, name)
}

// TestRedLock_Unlock_with_ended_ctx_still_frees_the_nodes covers the common
// `defer lock.Unlock(ctx)` whose ctx ran out during the work.
func TestRedLock_Unlock_with_ended_ctx_still_frees_the_nodes(t *testing.T) {
	_, clients := masters(t, 3)
	name := redistest.Unique(t)
	ctx, cancel := context.WithCancel(redistest.Ctx(t, hang))
	r := multilock.NewRedLock(clients, name)
	if err := r.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := r.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	assertCleanAll(t, clients, name)
}
