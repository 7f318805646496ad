package multilock_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
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

// counterAhead sets the fencing counter fence of node c an hour ahead of
// c's clock in µs, above any token the nodes mint from their clocks during
// a test, and returns the value it set.
func counterAhead(t *testing.T, c redis.UniversalClient, fence string) int64 {
	t.Helper()
	ctx := redistest.Ctx(t, redistest.Hang)
	now, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	ahead := now.Add(time.Hour).UnixMicro()
	if err := c.Set(ctx, fence, ahead, 0).Err(); err != nil {
		t.Fatal(err)
	}
	return ahead
}

func assertCleanAll(t *testing.T, clients []redis.UniversalClient, name string) {
	t.Helper()
	for _, c := range clients {
		redistest.AssertClean(t, c, name)
	}
}

// wantTryLockFails checks that TryLock of r fails with an error that
// matches target and says each of says, and leaves r without a hold.
func wantTryLockFails(t *testing.T, r *multilock.RedLock, target error, says ...string) error {
	t.Helper()
	ok, err := r.TryLock(redistest.Ctx(t, redistest.Hang))
	if ok {
		t.Fatal("TryLock succeeded")
	}
	redistest.WantErr(t, err, target)
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("TryLock error %q does not say %q", err, s)
		}
	}
	if r.Token() != 0 || r.Lost() != nil {
		t.Fatal("a failed TryLock left a hold")
	}
	return err
}

func TestNewRedLock_invalid_arguments_return_ErrInvalid(t *testing.T) {
	_, rc1 := redistest.Mini(t)
	_, rc2 := redistest.Mini(t)
	c1, c2 := redistest.Lockkit(t, rc1), redistest.Lockkit(t, rc2)
	sameRedis := redistest.Lockkit(t, rc1)
	rcSame := redis.NewClient(&redis.Options{Addr: rc1.Options().Addr})
	t.Cleanup(func() { _ = rcSame.Close() })
	sameServer := redistest.Lockkit(t, rcSame)
	otherDefaults := redistest.Lockkit(t, redistest.StartServer(t).Client(t), lockkit.WithWatchdogTimeout(time.Second))
	cases := []struct {
		name    string
		clients []*lockkit.Client
		opts    []lockkit.Option
	}{
		{"no clients", nil, nil},
		{"nil client", []*lockkit.Client{c1, nil}, nil},
		{"same client twice", []*lockkit.Client{c1, c2, c1}, nil},
		{"same redis client twice", []*lockkit.Client{c1, c2, sameRedis}, nil},
		{"same server twice", []*lockkit.Client{c1, c2, sameServer}, nil},
		{"clients with different defaults", []*lockkit.Client{c1, otherDefaults}, nil},
		{"zero node timeout", []*lockkit.Client{c1}, []lockkit.Option{multilock.WithNodeTimeout(0)}},
		{"negative drift", []*lockkit.Client{c1}, []lockkit.Option{multilock.WithDriftFactor(-0.1)}},
		{"huge drift", []*lockkit.Client{c1}, []lockkit.Option{multilock.WithDriftFactor(0.5)}},
		{"Mutex option", []*lockkit.Client{c1}, []lockkit.Option{multilock.WithLockWait(time.Second)}},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := multilock.NewRedLock(tc.clients, "x", tc.opts...)
			redistest.WantErr(t, r.Lock(ctx), lockkit.ErrInvalid)
			_, err := r.TryLock(ctx)
			redistest.WantErr(t, err, lockkit.ErrInvalid)
			redistest.WantErr(t, r.Unlock(ctx), lockkit.ErrInvalid)
			if r.Token() != 0 || r.Lost() != nil {
				t.Fatal("an invalid RedLock reports a hold")
			}
			if q := r.Quorum(); q != 0 {
				t.Fatalf("Quorum() = %d for an invalid RedLock, want 0", q)
			}
		})
	}
	if lockkit.New(rc1, multilock.WithNodeTimeout(time.Second)).Err() == nil {
		t.Fatal("WithNodeTimeout accepted as a Client default")
	}
}

func TestRedLock_holds_on_every_node_and_frees_them(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 5)
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lockkits(t, clients), name)
	if r.Quorum() != 3 {
		t.Fatalf("Quorum() = %d for 5 nodes", r.Quorum())
	}
	redistest.MustLock(t, r)
	if n := holders(t, clients, name); n != 5 {
		t.Fatalf("%d nodes hold the lock, want 5", n)
	}
	for i, c := range clients {
		if ttl := c.PTTL(ctx, lockKey(name)).Val(); ttl <= 0 || ttl > lockkit.DefaultWatchdogTimeout {
			t.Fatalf("node %d: lease %v, want up to %v", i, ttl, lockkit.DefaultWatchdogTimeout)
		}
		if kind := c.HGet(ctx, lockKey(name), ":kind").Val(); kind != "redlock" {
			t.Fatalf("node %d: kind %q", i, kind)
		}
	}
	other := multilock.NewRedLock(lockkits(t, clients), name)
	if ok, err := other.TryLock(ctx); ok || err != nil {
		t.Fatalf("another owner's TryLock = %v, %v", ok, err)
	}
	redistest.MustUnlock(t, r)
	assertCleanAll(t, clients, name)
}

// TestRedLock_two_nodes_down_still_acquires_and_excludes kills two of five
// masters: three still make a majority.
func TestRedLock_two_nodes_down_still_acquires_and_excludes(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	servers, clients := masters(t, 5)
	lcs := lockkits(t, clients)
	servers[1].Kill(t)
	servers[3].Kill(t)
	name := redistest.Unique(t)
	a, b := multilock.NewRedLock(lcs, name), multilock.NewRedLock(lcs, name)
	redistest.MustLock(t, a)
	if ok, err := b.TryLock(ctx); ok || err != nil {
		t.Fatalf("b.TryLock = %v, %v; want false, nil", ok, err)
	}
	err := b.Lock(redistest.Ctx(t, 200*time.Millisecond))
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
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
	servers, clients := masters(t, 5)
	lcs := lockkits(t, clients)
	for _, i := range []int{0, 2, 4} {
		servers[i].Kill(t)
	}
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lcs, name)
	err := r.Lock(redistest.Ctx(t, 300*time.Millisecond))
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded, lockkit.ErrQuorum)
	if !strings.Contains(err.Error(), "2 of 5 nodes answered, 3 needed") {
		t.Fatalf("error %q does not say how many nodes answered", err)
	}

	if r.Token() != 0 || r.Lost() != nil {
		t.Fatal("a failed Lock left a hold")
	}
	wantTryLockFails(t, r, lockkit.ErrQuorum, "2 of 5 nodes answered")
	assertCleanAll(t, []redis.UniversalClient{clients[1], clients[3]}, name)
}

// TestRedLock_restarted_empty_node_admits_no_second_holder restarts nodes
// of a held lock without their data, one and then two more. With one
// restarted the lock is still held on four of five nodes: nobody else can
// take it and it is not lost. With three restarted it is held on two: the
// lost channel closes.
func TestRedLock_restarted_empty_node_admits_no_second_holder(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	servers, clients := masters(t, 5)
	renewals := make([]*renewalCounter, 5)
	for i, c := range clients {
		renewals[i] = &renewalCounter{}
		c.(*redis.Client).AddHook(renewals[i])
	}
	lcs := lockkits(t, clients)
	name := redistest.Unique(t)
	// Short enough that renewals soon find the hold gone, long enough
	// that a renewal late under load does not lose it.
	a := multilock.NewRedLock(lcs, name, lockkit.WithWatchdogTimeout(1500*time.Millisecond))
	b := multilock.NewRedLock(lcs, name)
	redistest.MustLock(t, a)
	lost := a.Lost()

	// restart restarts node i empty and waits until a's watchdog learnt
	// there that the hold is gone.
	restart := func(i int) {
		servers[i].Restart(t)
		redistest.Eventually(t, redistest.Hang, "a renewal to find the hold gone", func() bool { return renewals[i].gone.Load() > 0 })
	}
	restart(2)
	if ok, err := b.TryLock(ctx); ok || err != nil {
		t.Fatalf("b.TryLock with one node restarted = %v, %v", ok, err)
	}
	redistest.WantErr(t, b.Lock(redistest.Ctx(t, 200*time.Millisecond)), lockkit.ErrNotObtained, context.DeadlineExceeded)
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
	redistest.Receive(t, lost, redistest.Hang, "the lost channel to close with 2 of 5 nodes holding the lock")
	redistest.WantErr(t, a.Unlock(ctx), lockkit.ErrLost)
	redistest.MustLock(t, b)
	redistest.MustUnlock(t, b)
	assertCleanAll(t, clients, name)
}

// TestRedLock_tokens_increase_when_node_counters_disagree starts node 0's
// counter an hour ahead of the clocks, far ahead of the tokens the others
// mint. The first hold takes its token from node 0 and brings the others up
// to it; with node 0 gone, the next hold's token, minted by the others, is
// still larger.
func TestRedLock_tokens_increase_when_node_counters_disagree(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	servers, clients := masters(t, 3)
	name := redistest.Unique(t)
	fence := lockKey(name) + ":fence"
	ahead := counterAhead(t, clients[0], fence)
	lcs := lockkits(t, clients)
	a := multilock.NewRedLock(lcs, name)
	redistest.MustLock(t, a)
	if a.Token() != ahead+1 {
		t.Fatalf("Token() = %d, want %d from node 0", a.Token(), ahead+1)
	}
	for i, c := range clients {
		if n, err := c.Get(ctx, fence).Int64(); n < ahead+1 || err != nil {
			t.Fatalf("node %d: counter %d, %v; want at least %d", i, n, err, ahead+1)
		}
	}
	redistest.MustUnlock(t, a)
	servers[0].Kill(t)
	b := multilock.NewRedLock(lcs, name)
	redistest.MustLock(t, b)
	if b.Token() <= a.Token() {
		t.Fatalf("Token() = %d after a hold with token %d", b.Token(), a.Token())
	}
	redistest.MustUnlock(t, b)
	assertCleanAll(t, clients[1:], name)
}

// TestRedLock_token_not_taken_by_quorum_fails_with_ErrQuorum: a quorum
// grants the lock, but the nodes whose counters lag never confirm taking
// its fencing token, so the round fails as a quorum failure, not as "too
// late", and leaves nothing held.
func TestRedLock_token_not_taken_by_quorum_fails_with_ErrQuorum(t *testing.T) {
	_, clients := masters(t, 3)
	name := redistest.Unique(t)
	counterAhead(t, clients[0], lockKey(name)+":fence")
	for _, c := range clients[1:] {
		h := &redistest.DropReply{Match: func(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "raise") }}
		h.Arm()
		c.(*redis.Client).AddHook(h)
	}
	r := multilock.NewRedLock(lockkits(t, clients), name)
	wantTryLockFails(t, r, lockkit.ErrQuorum, "took its fencing token")
	if n := holders(t, clients, name); n != 0 {
		t.Fatalf("%d nodes still hold the lock after the failed round", n)
	}
}

// TestRedLock_partial_round_releases_what_it_took has another owner hold
// three of five nodes; a round over all five gets two and gives them back.
func TestRedLock_partial_round_releases_what_it_took(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 5)
	lcs := lockkits(t, clients)
	name := redistest.Unique(t)
	other := multilock.NewRedLock(lcs[:3], name)
	redistest.MustLock(t, other)
	r := multilock.NewRedLock(lcs, name)
	if ok, err := r.TryLock(ctx); ok || err != nil {
		t.Fatalf("TryLock = %v, %v; want false, nil", ok, err)
	}
	assertCleanAll(t, clients[3:], name)
	redistest.WantErr(t, r.Lock(redistest.Ctx(t, 200*time.Millisecond)), lockkit.ErrNotObtained, context.DeadlineExceeded)
	// A round cut short by the deadline gives back what it took in the
	// background (within the clean-up bound): closing the Clients of the
	// nodes only r uses waits for it.
	for _, c := range lcs[3:] {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	assertCleanAll(t, clients[3:], name)
	redistest.MustUnlock(t, other)
	assertCleanAll(t, clients, name)
}

// TestRedLock_undoes_an_acquire_whose_reply_was_lost loses the reply of
// node 1's acquire, which did run: with the other two nodes the lock is
// held, and node 1's holder undoes what it took unknowingly. In a round
// that fails, the same undo runs.
func TestRedLock_undoes_an_acquire_whose_reply_was_lost(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 3)
	drop := &redistest.DropReply{Match: func(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "acquire") }}
	clients[1].(*redis.Client).AddHook(drop)
	lcs := lockkits(t, clients)
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lcs, name)

	drop.Arm()
	redistest.MustLock(t, r)
	if drop.Armed() {
		t.Fatal("node 1's acquire did not run")
	}
	redistest.Eventually(t, redistest.Hang, "node 1's stray part to be undone", func() bool {
		return holders(t, clients, name) == 2
	})
	redistest.MustUnlock(t, r)
	assertCleanAll(t, clients, name)

	other := multilock.NewRedLock([]*lockkit.Client{lcs[0], lcs[2]}, name)
	redistest.MustLock(t, other)
	drop.Arm()
	if ok, err := r.TryLock(ctx); ok || err != nil {
		t.Fatalf("TryLock = %v, %v; want false, nil", ok, err)
	}
	redistest.Eventually(t, redistest.Hang, "node 1's stray part to be undone", func() bool {
		n, err := clients[1].Exists(ctx, lockKey(name)).Result()
		return err == nil && n == 0
	})
	redistest.AssertClean(t, clients[1], name)
	redistest.MustUnlock(t, other)
	assertCleanAll(t, clients, name)
}

// TestRedLock_Unlock_without_a_quorum_of_answers_can_be_retried loses the
// replies of two of three nodes' releases, which did run: the outcome is
// unknown, so Unlock fails and keeps the hold; the next Unlock asks those
// two nodes again and learns that their part was released.
func TestRedLock_Unlock_without_a_quorum_of_answers_can_be_retried(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 3)
	drops := hookEach(clients[1:], func() *redistest.DropReply { return &redistest.DropReply{Match: runsRelease} })
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lockkits(t, clients), name)
	redistest.MustLock(t, r)
	token := r.Token()
	redLockUnlockInDoubt(ctx, t, r, drops, "Unlock")
	if r.Token() != token {
		t.Fatalf("Token() = %d after an unsettled Unlock, want %d", r.Token(), token)
	}
	assertCleanAll(t, clients, name)
	redistest.MustUnlock(t, r)
	redistest.WantErr(t, r.Unlock(ctx), lockkit.ErrNotHeld)
}

// TestRedLock_node_timeout_bounds_every_request_to_a_stalled_node stalls
// one node of three, and then two, for longer than the test may run: every
// request to them must give up after the node timeout, whether or not
// go-redis honours ctx deadlines on the socket.
func TestRedLock_node_timeout_bounds_every_request_to_a_stalled_node(t *testing.T) {
	for _, honoured := range []bool{true, false} {
		t.Run(fmt.Sprintf("ContextTimeoutEnabled=%v", honoured), func(t *testing.T) {
			testNodeTimeout(t, honoured)
		})
	}
}

func testNodeTimeout(t *testing.T, honoured bool) {
	ctx := redistest.Ctx(t, redistest.Hang)
	servers := redistest.StartMasters(t, 3)
	clients := make([]redis.UniversalClient, len(servers))
	for i, s := range servers {
		c := redis.NewClient(&redis.Options{Addr: s.Addr(), ContextTimeoutEnabled: honoured})
		t.Cleanup(func() { _ = c.Close() })
		clients[i] = c
	}
	lcs := lockkits(t, clients)
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lcs, name, multilock.WithNodeTimeout(20*time.Millisecond))
	servers[2].Stall(t, 2*redistest.Hang)
	if err := r.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	assertCleanAll(t, clients[:2], name)

	servers[1].Stall(t, 2*redistest.Hang)
	wantTryLockFails(t, r, lockkit.ErrQuorum, "1 of 3 nodes answered", "no answer within 20ms")
	redistest.AssertClean(t, clients[0], name)
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
// its validity has run out, so the round fails and frees every node. The
// error tells how long the round had taken when it was found too late,
// not counting the give-back that follows (whose scripts are slowed too).
func TestRedLock_no_validity_left_means_not_acquired(t *testing.T) {
	const slow = 150 * time.Millisecond
	_, clients := masters(t, 3)
	for _, c := range clients {
		c.(*redis.Client).AddHook(slowScripts{slow})
	}
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lockkits(t, clients), name,
		lockkit.WithLease(100*time.Millisecond), multilock.WithNodeTimeout(5*time.Second))
	begun := time.Now()
	err := wantTryLockFails(t, r, lockkit.ErrNotObtained, "too late")
	took := time.Since(begun)
	m := regexp.MustCompile(`too late: (\S+) of its`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("TryLock error %q does not say how long the round took", err)
	}
	said, perr := time.ParseDuration(m[1])
	if perr != nil {
		t.Fatalf("error %q: %v", err, perr)
	}
	if said < slow || said > took-slow {
		t.Fatalf("error %q says the round took %v; want at least the %v a node took to answer, "+
			"and not the %v of giving the nodes back (TryLock took %v)", err, said, slow, slow, took)
	}
	assertCleanAll(t, clients, name)
}

func TestRedLock_fixed_lease_is_lost_when_validity_ends(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 3)
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lockkits(t, clients), name, lockkit.WithLease(200*time.Millisecond))
	redistest.MustLock(t, r)
	redistest.Receive(t, r.Lost(), redistest.Hang, "the lost channel to close when the validity ended")
	if r.Token() != 0 {
		t.Fatalf("Token() = %d for a lost hold", r.Token())
	}
	redistest.WantErr(t, r.Unlock(ctx), lockkit.ErrLost)
	redistest.WantErr(t, r.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.Eventually(t, redistest.Hang, "the nodes to expire the lease", func() bool { return holders(t, clients, name) == 0 })
	assertCleanAll(t, clients, name)
}

// redlockHammer is the child process of
// TestRedLock_excludes_across_processes: a RedLock over every server it
// is given. Its Clients live as long as the process.
var redlockHammer = redistest.CountingChild(func(clients []redis.UniversalClient, name string) redistest.TokenLocker {
	lcs := make([]*lockkit.Client, len(clients))
	for i, c := range clients {
		lcs[i] = lockkit.New(c)
	}
	return multilock.NewRedLock(lcs, name)
})

// TestRedLock_excludes_across_processes runs three processes that each take
// a RedLock over five masters 20 times to increment a counter with a
// non-atomic read and write; any overlap would lose an increment or reorder
// the fencing tokens.
func TestRedLock_excludes_across_processes(t *testing.T) {
	servers, clients := masters(t, 5)
	addrs := make([]string, len(servers))
	for i, s := range servers {
		addrs[i] = s.Addr()
	}
	name := redistest.Unique(t)
	redistest.CountRun{
		Child: "redlock-hammer", Addrs: addrs, Name: name,
		Procs: 3, Goroutines: 1, Rounds: 20, Fenced: true, Timeout: time.Minute,
	}.Run(t)
	assertCleanAll(t, clients, name)
}

// BenchmarkRedLock_uncontended locks and unlocks a free RedLock over n
// masters: one acquire and one release per node, sent to all at once.
func BenchmarkRedLock_uncontended(b *testing.B) {
	for _, n := range []int{3, 5} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			clients, counter := countedMasters(b, n)
			redistest.BenchLockUnlock(b, multilock.NewRedLock(clients, redistest.Unique(b)), counter)
		})
	}
}

// BenchmarkRedLock_contended has 4 owners take one RedLock over 5 masters
// b.N times in all, holding it for 100 µs, and reports the commands sent
// per acquisition over all nodes.
func BenchmarkRedLock_contended(b *testing.B) {
	const owners, hold = 4, 100 * time.Microsecond
	clients, counter := countedMasters(b, 5)
	name := redistest.Unique(b)
	redistest.BenchContended(b, owners, hold, func() redistest.Locker { return multilock.NewRedLock(clients, name) }, counter)
}

// countedMasters starts n independent servers and returns a lockkit
// Client of each, whose commands one counter counts.
func countedMasters(b *testing.B, n int) ([]*lockkit.Client, *redistest.Counter) {
	_, clients := masters(b, n)
	counter := redistest.NewCounter()
	for _, c := range clients {
		c.(*redis.Client).AddHook(counter.Hook())
	}
	return lockkits(b, clients), counter
}

// TestRedLock_reports_its_hold_once_to_a_Trace: a RedLock over three
// masters reports one acquire and one release per call, not one per node.
func TestRedLock_reports_its_hold_once_to_a_Trace(t *testing.T) {
	_, clients := masters(t, 3)
	var mu sync.Mutex
	var acquired []lockkit.AcquiredInfo
	var released []lockkit.ReleasedInfo
	tr := &lockkit.Trace{
		Acquired: func(i lockkit.AcquiredInfo) { mu.Lock(); acquired = append(acquired, i); mu.Unlock() },
		Released: func(i lockkit.ReleasedInfo) { mu.Lock(); released = append(released, i); mu.Unlock() },
	}
	r := multilock.NewRedLock(lockkits(t, clients), redistest.Unique(t), lockkit.WithTrace(tr))
	redistest.MustLock(t, r)
	redistest.MustLock(t, r)
	redistest.MustUnlock(t, r)
	redistest.MustUnlock(t, r)
	mu.Lock()
	defer mu.Unlock()
	if len(acquired) != 2 || acquired[0].Reentry || !acquired[1].Reentry || acquired[0].Token == 0 ||
		acquired[0].Token != acquired[1].Token || acquired[0].Lock.Kind != "redlock" {
		t.Errorf("Acquired = %+v; want the hold, then its re-entry", acquired)
	}
	if len(released) != 2 || released[0].Ended || !released[1].Ended || released[1].Err != nil {
		t.Errorf("Released = %+v; want one partial release, then the end", released)
	}
}

// TestRedLock_Lock_reenters_without_talking_to_Redis: once r holds the
// lock, Lock and TryLock re-enter and an Unlock that is not the last
// undoes one of them, all without sending a command to any node.
func TestRedLock_Lock_reenters_without_talking_to_Redis(t *testing.T) {
	_, clients := masters(t, 3)
	counter := redistest.NewCounter()
	for _, c := range clients {
		c.(*redis.Client).AddHook(counter.Hook())
	}
	name := redistest.Unique(t)
	// A lease long enough that no renewal is due while the test runs.
	r := multilock.NewRedLock(lockkits(t, clients), name, lockkit.WithWatchdogTimeout(time.Hour))
	redistest.MustLock(t, r)
	token := r.Token()
	counter.Reset()
	redistest.MustLock(t, r)
	if ok, err := r.TryLock(redistest.Ctx(t, redistest.Hang)); !ok || err != nil {
		t.Fatalf("TryLock by the holder = %v, %v; want re-entry", ok, err)
	}
	redistest.MustUnlock(t, r)
	redistest.MustUnlock(t, r)
	if n := counter.Total(); n != 0 {
		t.Fatalf("re-entries and the Unlocks that undid them sent %d commands, want 0", n)
	}
	if r.Token() != token {
		t.Fatalf("Token() = %d after re-entries, want %d", r.Token(), token)
	}
	redistest.MustUnlock(t, r)
	assertCleanAll(t, clients, name)
}

// TestRedLock_Unlock_released_on_a_minority_returns_ErrLost deletes the
// lock on two of three nodes behind the holder's back, before any renewal
// can notice: the last Unlock releases it on one node only, so another
// owner may have had it meanwhile, and Unlock reports ErrLost, frees the
// node it held and leaves r holding nothing.
func TestRedLock_Unlock_released_on_a_minority_returns_ErrLost(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	clients, lcs, name := threeNodes(t)
	r := multilock.NewRedLock(lcs, name, lockkit.WithWatchdogTimeout(time.Hour))
	redistest.MustLock(t, r)
	for _, c := range clients[1:] {
		if err := c.Del(ctx, lockKey(name)).Err(); err != nil {
			t.Fatal(err)
		}
	}
	redistest.WantErr(t, r.Unlock(ctx), lockkit.ErrLost)
	if r.Token() != 0 {
		t.Fatalf("Token() = %d after the last Unlock", r.Token())
	}
	redistest.WantErr(t, r.Unlock(ctx), lockkit.ErrNotHeld)
	other := multilock.NewRedLock(lcs, name)
	redistest.MustLock(t, other)
	redistest.MustUnlock(t, other)
	assertCleanAll(t, clients, name)
}

// TestRedLock_Lock_waits_through_an_outage_of_a_majority kills two of
// three masters: Lock keeps trying (no quorum can answer) instead of
// failing, and takes the lock once the masters are back.
func TestRedLock_Lock_waits_through_an_outage_of_a_majority(t *testing.T) {
	servers, clients := masters(t, 3)
	counter := redistest.CountCommands(clients[0])
	lcs := lockkits(t, clients)
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lcs, name)
	servers[1].Kill(t)
	servers[2].Kill(t)
	done := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), r)
	keepsTrying(t, done, counter, 4, "a majority is down") // rounds on the live node
	servers[1].Restart(t)
	servers[2].Restart(t)
	if err := redistest.Receive(t, done, redistest.Hang, "Lock once the masters are back"); err != nil {
		t.Fatal(err)
	}
	if n := holders(t, clients, name); n < r.Quorum() {
		t.Fatalf("%d nodes hold the lock, want at least %d", n, r.Quorum())
	}
	redistest.MustUnlock(t, r)
	assertCleanAll(t, clients, name)
}

// TestRedLock_closed_node_Clients: closing the Client of one node of three
// ends a Lock waiting on the lock with ErrClosed, and reports the holder's
// part on that node lost, but the hold lives on two nodes; closing a
// second node's Client leaves one, and the lost channel closes.
func TestRedLock_closed_node_Clients(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	clients, lcs, name := threeNodes(t)
	holder, waiter := multilock.NewRedLock(lcs, name), multilock.NewRedLock(lcs, name)
	redistest.MustLock(t, holder)
	done := redistest.LockAsync(ctx, waiter)
	if err := lcs[1].Close(); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, redistest.Receive(t, done, redistest.Hang, "the waiter's Lock"), lockkit.ErrClosed)
	select {
	case <-holder.Lost():
		t.Fatal("the hold counts as lost while 2 of 3 nodes hold it")
	default:
	}
	if ok, err := multilock.NewRedLock([]*lockkit.Client{lcs[0], lcs[2]}, name).TryLock(ctx); ok || err != nil {
		t.Fatalf("another owner's TryLock on the two live nodes = %v, %v; want false, nil", ok, err)
	}
	if err := lcs[2].Close(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, holder.Lost(), redistest.Hang, "the lost channel to close with 1 of 3 nodes holding the lock")
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
	redistest.AssertClean(t, clients[0], name)
}

// TestRedLock_with_owner_shares_the_hold_with_a_node_down: RedLocks with
// the same owner id over three masters, one of them down, are one owner:
// the second re-enters the hold of the first, another owner is kept out
// until the owner's holds are undone, a value of the owner that never
// locked may undo one of them (and a second time finds nothing held), and
// the first learns of it as no loss.
func TestRedLock_with_owner_shares_the_hold_with_a_node_down(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	servers, clients := masters(t, 3)
	lcs := lockkits(t, clients)
	servers[2].Kill(t)
	name, id := redistest.Unique(t), "job-"+redistest.Unique(t)
	owned := func() *multilock.RedLock { return multilock.NewRedLock(lcs, name, lockkit.WithOwner(id)) }
	wantRefused := func(what string) {
		t.Helper()
		if ok, err := multilock.NewRedLock(lcs, name).TryLock(ctx); ok || err != nil {
			t.Fatalf("another owner's TryLock %s = %v, %v; want false, nil", what, ok, err)
		}
	}
	a, b := owned(), owned()
	redistest.MustLock(t, a)
	reenterShared(t, a, b)
	redistest.MustUnlock(t, b)
	wantRefused("while the first hold lasts")
	c := owned() // another process of the job, say
	redistest.MustUnlock(t, c)
	redistest.WantErr(t, c.Unlock(ctx), lockkit.ErrNotHeld)
	other := multilock.NewRedLock(lcs, name)
	redistest.MustLock(t, other)
	redistest.MustUnlock(t, other)
	// The hold a took was released by its owner: a's Unlock reports no
	// loss.
	if err := a.Unlock(ctx); err != nil {
		t.Fatalf("Unlock of a hold its owner released through another value = %v, want nil", err)
	}
	assertCleanAll(t, clients[:2], name)
}

// TestRedLock_member_of_a_Mutex: a Mutex holds a RedLock together with a
// single-server lock, all or nothing, and hands both to the next caller
// when it unlocks.
func TestRedLock_member_of_a_Mutex(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 3)
	lcs := lockkits(t, clients)
	x, y := "x-"+redistest.Unique(t), "y-"+redistest.Unique(t)
	both := func() *multilock.Mutex {
		return multilock.New([]lockkit.Locker{reentrant.New(lcs[0], y), multilock.NewRedLock(lcs, x)})
	}
	m, next := both(), both()
	redistest.MustLock(t, m)
	if ok, err := next.TryLock(ctx); ok || err != nil {
		t.Fatalf("another Mutex's TryLock = %v, %v; want false, nil", ok, err)
	}
	done := redistest.LockAsync(ctx, next)
	redistest.MustUnlock(t, m)
	if err := redistest.Receive(t, done, redistest.Hang, "the next Mutex's Lock"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, next)
	assertCleanAll(t, clients, x)
	redistest.AssertClean(t, clients[0], y)
}

// TestNewRedLock_applies_the_Clients_defaults: a lease and a key prefix
// the Clients were made with hold on every node.
func TestNewRedLock_applies_the_Clients_defaults(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 3)
	const lease = 5 * time.Second
	lcs := make([]*lockkit.Client, len(clients))
	for i, c := range clients {
		lcs[i] = redistest.Lockkit(t, c, lockkit.WithWatchdogTimeout(lease), lockkit.WithPrefix("app"))
	}
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lcs, name)
	redistest.MustLock(t, r)
	for i, c := range clients {
		if ttl := c.PTTL(ctx, "app:{"+name+"}").Val(); ttl <= 0 || ttl > lease {
			t.Fatalf("node %d: lease %v under the Clients' prefix, want up to %v", i, ttl, lease)
		}
	}
	redistest.MustUnlock(t, r)
	for i, c := range clients {
		if n := c.Exists(ctx, "app:{"+name+"}").Val(); n != 0 {
			t.Fatalf("node %d still holds the lock after Unlock", i)
		}
	}
}

// TestRedLock_Unlock_leaves_a_silent_node_s_part_to_its_lease: when one
// node of three does not answer the release, a majority still released
// the lock, so Unlock returns nil; the silent node's part is no longer
// renewed and ends with its lease, without the release ever arriving.
func TestRedLock_Unlock_leaves_a_silent_node_s_part_to_its_lease(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 3)
	silent := releaseSilence()
	defer silent.Off()
	clients[2].(*redis.Client).AddHook(silent)
	name := redistest.Unique(t)
	// A short lease (renewed every 100 ms while held) and a generous node
	// timeout, so that the release to the silent node is the one that
	// times out.
	r := multilock.NewRedLock(lockkits(t, clients), name,
		lockkit.WithWatchdogTimeout(300*time.Millisecond), multilock.WithNodeTimeout(100*time.Millisecond))
	redistest.MustLock(t, r)
	silent.On()
	if err := r.Unlock(ctx); err != nil {
		t.Fatalf("Unlock with one silent node of three = %v, want nil", err)
	}
	assertCleanAll(t, clients[:2], name)
	redistest.Eventually(t, redistest.Hang, "the silent node's part to end with its lease", func() bool {
		n, err := clients[2].Exists(ctx, lockKey(name)).Result()
		return err == nil && n == 0
	})
	redistest.WantErr(t, r.Unlock(ctx), lockkit.ErrNotHeld)
}

// TestRedLock_stalled_majority_is_reported_lost stalls two of three nodes
// while the lock is held: their renewals fail until the lease would have
// lapsed there, so they drop out, the lost channel closes, and Unlock
// reports ErrLost without waiting for the stalled nodes.
func TestRedLock_stalled_majority_is_reported_lost(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	servers, clients := masters(t, 3)
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lockkits(t, clients), name, lockkit.WithWatchdogTimeout(time.Second))
	redistest.MustLock(t, r)
	lost := r.Lost()
	servers[1].Stall(t, 2*redistest.Hang)
	servers[2].Stall(t, 2*redistest.Hang)
	redistest.Receive(t, lost, redistest.Hang, "the lost channel to close with 2 of 3 nodes stalled")
	redistest.WantErr(t, r.Unlock(ctx), lockkit.ErrLost)
	redistest.AssertClean(t, clients[0], name)
	redistest.WantErr(t, r.Unlock(ctx), lockkit.ErrNotHeld)
}

// TestRedLock_waits_without_pubsub: a RedLock waiter retries with backoff
// and its holder's release publishes nothing, so no node ever runs a
// pub/sub command (INFO commandstats lists every command run since the
// reset, by scripts too).
func TestRedLock_waits_without_pubsub(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	servers, clients := masters(t, 3)
	for _, c := range clients {
		if err := c.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
	waiting := make([]redis.UniversalClient, len(servers))
	for i, s := range servers {
		waiting[i] = s.Client(t)
	}
	attempts := redistest.CountCommands(waiting[0])
	name := redistest.Unique(t)
	holder, waiter := multilock.NewRedLock(lockkits(t, clients), name), multilock.NewRedLock(lockkits(t, waiting), name)
	redistest.MustLock(t, holder)
	done := redistest.LockAsync(ctx, waiter)
	redistest.Eventually(t, redistest.Hang, "the waiter to try three times", func() bool { return attempts.Scripts() >= 3 })
	redistest.MustUnlock(t, holder)
	if err := redistest.Receive(t, done, redistest.Hang, "the waiter's Lock"); err != nil {
		t.Fatal(err)
	}
	redistest.MustUnlock(t, waiter)
	for i, c := range clients {
		calls := redistest.CommandCalls(t, c)
		for _, cmd := range []string{"subscribe", "psubscribe", "ssubscribe", "publish", "spublish"} {
			if calls[cmd] > 0 {
				t.Errorf("node %d ran %s", i, strings.ToUpper(cmd))
			}
		}
	}
	// Control: the check sees a PUBLISH.
	clients[0].Publish(ctx, name, "x")
	if calls := redistest.CommandCalls(t, clients[0]); calls["publish"] == 0 {
		t.Fatalf("control: INFO commandstats does not list a PUBLISH run: %v", calls)
	}
}

// TestRedLock_reports_a_lost_hold_once_to_a_Trace: when a RedLock's hold
// is lost (here its fixed lease's validity ends), the Trace's Lost is
// called once, for the RedLock's hold: its token and an error matching
// ErrLost.
func TestRedLock_reports_a_lost_hold_once_to_a_Trace(t *testing.T) {
	_, clients := masters(t, 3)
	lost := make(chan lockkit.LostInfo, 8)
	tr := &lockkit.Trace{Lost: func(i lockkit.LostInfo) { lost <- i }}
	r := multilock.NewRedLock(lockkits(t, clients), redistest.Unique(t),
		lockkit.WithTrace(tr), lockkit.WithLease(200*time.Millisecond))
	redistest.MustLock(t, r)
	token := r.Token()
	info := redistest.Receive(t, lost, redistest.Hang, "the Trace's Lost")
	if info.Token != token || info.Lock.Kind != "redlock" {
		t.Errorf("Lost = %+v; want the hold with token %d of a redlock", info, token)
	}
	redistest.WantErr(t, info.Err, lockkit.ErrLost)
	redistest.WantErr(t, r.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost)
	if n := len(lost); n != 0 {
		t.Errorf("Lost called %d more times", n)
	}
}

// TestRedLock_Unlock_returns_within_ctx_against_silent_nodes: while no
// node answers its release, Unlock returns when its ctx ends, not when a
// far longer node timeout would, and keeps the hold, whose outcome is
// unknown; once the nodes answer, the next Unlock settles it.
func TestRedLock_Unlock_returns_within_ctx_against_silent_nodes(t *testing.T) {
	clients, silent := silentNodes(t)
	defer silent.Off()
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lockkits(t, clients), name, multilock.WithNodeTimeout(2*redistest.Hang))
	redistest.MustLock(t, r)
	token := r.Token()
	silent.On()
	done := make(chan error, 1)
	go func() { done <- r.Unlock(redistest.Ctx(t, 100*time.Millisecond)) }()
	err := redistest.Receive(t, done, redistest.Hang, "Unlock with a 100 ms ctx")
	redistest.WantErr(t, err, context.DeadlineExceeded)
	if r.Token() != token {
		t.Fatalf("Token() = %d after an unsettled Unlock, want %d", r.Token(), token)
	}
	silent.Off()
	redistest.MustUnlock(t, r)
	assertCleanAll(t, clients, name)
	redistest.WantErr(t, r.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrNotHeld)
}

// TestRedLock_failed_round_gives_back_within_ctx: a round that one node
// grants and two refuse gives the granting node its part back, and that
// node does not answer the release. TryLock still returns within its ctx,
// although the node timeout is far longer, and the release, left running,
// frees the node's part once the node answers.
func TestRedLock_failed_round_gives_back_within_ctx(t *testing.T) {
	_, clients := masters(t, 3)
	silent := releaseSilence()
	defer silent.Off()
	clients[0].(*redis.Client).AddHook(silent)
	name := redistest.Unique(t)
	lcs := lockkits(t, clients)
	other := multilock.NewRedLock(lcs, name)
	redistest.MustLock(t, other)
	if err := clients[0].Del(redistest.Ctx(t, redistest.Hang), lockKey(name)).Err(); err != nil {
		t.Fatal(err)
	}
	r := multilock.NewRedLock(lcs, name, multilock.WithNodeTimeout(2*redistest.Hang))
	silent.On()
	type result struct {
		ok  bool
		err error
	}
	done := make(chan result, 1)
	go func() {
		ok, err := r.TryLock(redistest.Ctx(t, 100*time.Millisecond))
		done <- result{ok, err}
	}()
	res := redistest.Receive(t, done, redistest.Hang, "TryLock whose give-back gets no answer")
	if res.ok {
		t.Fatal("TryLock got a lock two of three nodes hold for another owner")
	}
	silent.Off()
	waitFreeOn(t, clients[0], name, "the part on node 0 to be given back")
	redistest.MustUnlock(t, other)
	redistest.MustLock(t, r)
	redistest.MustUnlock(t, r)
	assertCleanAll(t, clients, name)
}

// TestRedLock_round_cut_short_by_its_ctx_gives_back_in_the_background: one
// node grants and two do not answer until the ctx has ended, and then the
// granting node does not answer the release either. TryLock returns
// without waiting for it; the release runs on in the background, the
// next TryLock waits for it within its own ctx, and once the nodes answer
// the part is given back and the lock can be taken.
func TestRedLock_round_cut_short_by_its_ctx_gives_back_in_the_background(t *testing.T) {
	_, clients := masters(t, 3)
	release := &redistest.Silence{Match: func(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "release") }, Max: 2 * redistest.Hang}
	acquire := &redistest.Silence{Match: func(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "acquire") }, Max: 2 * redistest.Hang}
	defer release.Off()
	defer acquire.Off()
	clients[0].(*redis.Client).AddHook(release)
	for _, c := range clients[1:] {
		c.(*redis.Client).AddHook(acquire)
	}
	name := redistest.Unique(t)
	r := multilock.NewRedLock(lockkits(t, clients), name, multilock.WithNodeTimeout(2*redistest.Hang))
	redistest.MustLock(t, r) // loads the scripts
	redistest.MustUnlock(t, r)
	release.On()
	acquire.On()
	tryLock := func(d time.Duration) (bool, error) {
		type result struct {
			ok  bool
			err error
		}
		done := make(chan result, 1)
		go func() {
			ok, err := r.TryLock(redistest.Ctx(t, d))
			done <- result{ok, err}
		}()
		res := redistest.Receive(t, done, redistest.Hang, "TryLock")
		return res.ok, res.err
	}
	if ok, err := tryLock(100 * time.Millisecond); ok || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("TryLock with two nodes silent = %v, %v; want false and DeadlineExceeded", ok, err)
	}
	// The give-back of node 0's part still waits for its release.
	if ok, err := tryLock(100 * time.Millisecond); ok || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("TryLock during the give-back = %v, %v; want false and DeadlineExceeded", ok, err)
	}
	acquire.Off()
	release.Off()
	waitFreeOn(t, clients[0], name, "the part on node 0 to be given back")
	redistest.MustLock(t, r)
	redistest.MustUnlock(t, r)
	assertCleanAll(t, clients, name)
}

// TestRedLock_late_reply_of_a_failed_round_leaves_no_stray_count: the
// reply of node 0 to a round comes after the node timeout, so the round
// fails, and node 0's take, which did run, is undone when the reply comes.
// The next round comes before the reply. It must not re-enter that take
// on node 0 and count on it: then the undo, coming after it, would find a
// later acquire than its own and leave the take counted, a count nobody
// undoes that keeps the lock held on node 0 after every Unlock. Either the
// next round waits for the undo or it holds exactly what the nodes count:
// a value of the same owner re-enters with the same token, and once both
// Unlock, the lock is free on every node. Alike with the value's own owner
// id and with one several values share (WithOwner).
func TestRedLock_late_reply_of_a_failed_round_leaves_no_stray_count(t *testing.T) {
	for _, shared := range []bool{true, false} {
		t.Run(fmt.Sprintf("shared_owner=%v", shared), func(t *testing.T) {
			ctx := redistest.Ctx(t, redistest.Hang)
			_, clients := masters(t, 2) // both must grant
			var first atomic.Bool
			late := &redistest.Silence{Late: true, Max: 2 * redistest.Hang, Match: func(cmd redis.Cmder) bool {
				return multilock.RunsScript(cmd, "acquire") && first.CompareAndSwap(false, true)
			}}
			defer late.Off()
			clients[0].(*redis.Client).AddHook(late)
			lcs := lockkits(t, clients)
			name := redistest.Unique(t)
			// A lease longer than any wait here: a stray count outlives them.
			opts := []lockkit.Option{lockkit.WithWatchdogTimeout(4 * redistest.Hang)}
			if shared {
				opts = append(opts, lockkit.WithOwner("job-"+name))
			}
			a := multilock.NewRedLock(lcs, name, opts...)
			redistest.MustLock(t, a) // loads the scripts
			redistest.MustUnlock(t, a)

			late.On()
			if ok, err := a.TryLock(ctx); ok || !errors.Is(err, lockkit.ErrQuorum) {
				t.Fatalf("TryLock whose reply from node 0 is late = %v, %v; want false and ErrQuorum", ok, err)
			}
			// Node 0's take has run: its reply is held up.
			redistest.Eventually(t, redistest.Hang, "node 0's reply to be held up", func() bool { return late.Held() == 1 })
			held, err := a.TryLock(ctx)
			if !held && !errors.Is(err, lockkit.ErrQuorum) {
				t.Fatalf("TryLock before node 0's late reply = false, %v; want ErrQuorum if it fails", err)
			}
			late.Off()
			if held {
				if shared {
					b := multilock.NewRedLock(lcs, name, opts...)
					reenterShared(t, a, b)
					redistest.MustUnlock(t, b)
				}
				redistest.MustUnlock(t, a)
			}
			for _, c := range clients {
				givenBack(t, c, name)
			}
			redistest.MustLock(t, a)
			redistest.MustUnlock(t, a)
			assertCleanAll(t, clients, name)
		})
	}
}

// TestRedLock_late_give_back_after_the_next_round_re_entered: a round that
// node 1 grants and node 0 refuses gives node 1's part back, and that
// release reaches node 1 only after the next round re-entered the part
// there. The release takes back only the failed round's count: the hold
// stays on node 1, a value of the same owner re-enters it with the same
// token, and once both Unlock the lock is free on every node.
func TestRedLock_late_give_back_after_the_next_round_re_entered(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 2) // both must grant
	release := &redistest.Silence{Match: func(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "release") }, Max: 2 * redistest.Hang}
	defer release.Off()
	clients[1].(*redis.Client).AddHook(release)
	lcs := lockkits(t, clients)
	name := redistest.Unique(t)
	id := "job-" + name
	owned := func() *multilock.RedLock { return multilock.NewRedLock(lcs, name, lockkit.WithOwner(id)) }
	a, b := owned(), owned()
	redistest.MustLock(t, a) // loads the scripts
	redistest.MustUnlock(t, a)
	other := multilock.NewRedLock(lcs[:1], name) // another owner, on node 0 only
	redistest.MustLock(t, other)

	release.On()
	if ok, err := a.TryLock(ctx); ok || err != nil {
		t.Fatalf("TryLock refused by node 0 = %v, %v; want false, nil", ok, err)
	}
	redistest.Eventually(t, redistest.Hang, "node 1's give-back to be held up", func() bool { return release.Held() == 1 })
	redistest.MustUnlock(t, other)
	if ok, err := a.TryLock(ctx); !ok || err != nil {
		t.Fatalf("TryLock once node 0 is free = %v, %v; want true, nil", ok, err)
	}
	count := func() string { return clients[1].HGet(ctx, lockKey(name), id).Val() }
	if n := count(); n != "2" {
		t.Fatalf("node 1 counts %q acquires before the give-back, want 2 (the failed round's and this one's)", n)
	}
	release.Off()
	redistest.Eventually(t, redistest.Hang, "node 1's give-back", func() bool { return count() == "1" })
	reenterShared(t, a, b)
	redistest.MustUnlock(t, b)
	redistest.MustUnlock(t, a)
	assertCleanAll(t, clients, name)
}

// reenterShared checks that b, a RedLock of the owner a holds through,
// re-enters a's hold with TryLock and has its token.
func reenterShared(t *testing.T, a, b *multilock.RedLock) {
	t.Helper()
	if ok, err := b.TryLock(redistest.Ctx(t, redistest.Hang)); !ok || err != nil {
		t.Fatalf("TryLock by a value of the same owner = %v, %v; want re-entry", ok, err)
	}
	if b.Token() != a.Token() {
		t.Fatalf("the shared hold has tokens %d and %d", a.Token(), b.Token())
	}
}
