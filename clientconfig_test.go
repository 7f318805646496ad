package lockkit_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// wakeBound is how long a waiter may take to get a hold released by
// another Client: far below the 30 s lease it would otherwise sleep out,
// so that only a release message can meet it.
const wakeBound = 10 * time.Second

// clientConfig is a go-redis client configuration a user may hand
// lockkit: set changes the options of a plain client of the server.
type clientConfig struct {
	name string
	set  func(o *redis.Options)
	// hook, when set, adds hooks to every client made.
	hook func(rc redis.UniversalClient)
}

// clientConfigs are the configurations every kind is run with.
var clientConfigs = []clientConfig{
	{name: "default"},
	{name: "RESP2", set: func(o *redis.Options) { o.Protocol = 2 }},
	{name: "DB_3", set: func(o *redis.Options) { o.DB = 3 }},
	{name: "PoolSize_1", set: func(o *redis.Options) { o.PoolSize = 1 }},
	{name: "PoolSize_2", set: func(o *redis.Options) { o.PoolSize = 2 }},
	{name: "MaxRetries_-1", set: func(o *redis.Options) { o.MaxRetries = -1 }},
	{name: "ContextTimeoutEnabled", set: func(o *redis.Options) { o.ContextTimeoutEnabled = true }},
	{name: "ReadTimeout_-1", set: func(o *redis.Options) { o.ReadTimeout = -1 }},
	{name: "ReadTimeout_-2", set: func(o *redis.Options) { o.ReadTimeout = -2; o.WriteTimeout = -2 }},
	{name: "ConnMaxIdleTime_20ms", set: func(o *redis.Options) { o.ConnMaxIdleTime = 20 * time.Millisecond }},
	{name: "OnConnect", set: func(o *redis.Options) {
		o.OnConnect = func(ctx context.Context, cn *redis.Conn) error { return cn.ClientSetName(ctx, "app").Err() }
	}},
	{name: "hook_passing_through", hook: func(rc redis.UniversalClient) { redistest.CountCommands(rc) }},
	{name: "hook_adding_latency", hook: func(rc redis.UniversalClient) { redistest.AddLatency(rc, 3*time.Millisecond) }},
}

// client returns a client of addr configured by cc, closed in
// t.Cleanup.
func (cc clientConfig) client(t *testing.T, o redis.Options) *redis.Client {
	t.Helper()
	if cc.set != nil {
		cc.set(&o)
	}
	rc := redis.NewClient(&o)
	t.Cleanup(func() { _ = rc.Close() })
	if cc.hook != nil {
		cc.hook(rc)
	}
	return rc
}

// TestClientConfig_every_kind_waits_wakes_and_inspects_with_each_client_configuration
// runs every kind, on one redis-server, through two lockkit Clients made of
// two go-redis clients configured alike, once per configuration: one
// Client holds (its inspection calls reporting the hold), the other waits,
// and the release wakes it well before the lease would have ended; then
// the lock is given back and nothing is left in Redis.
func TestClientConfig_every_kind_waits_wakes_and_inspects_with_each_client_configuration(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, cc := range clientConfigs {
		t.Run(cc.name, func(t *testing.T) {
			runKinds(t, func(t *testing.T) redis.UniversalClient {
				return cc.client(t, redis.Options{Addr: srv.Addr()})
			})
		})
	}
}

// runKinds runs the contention of every configKinds kind, each in a
// parallel subtest, with clients from newRC.
func runKinds(t *testing.T, newRC func(t *testing.T) redis.UniversalClient, opts ...lockkit.Option) {
	for _, k := range configKinds {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			contend(t, k, newRC(t), newRC(t), opts...)
		})
	}
}

// contend runs k's contention between a Client of holderRC and one of
// waiterRC, and checks that nothing of the lock is left behind. With
// plain clients it checks too that no pub/sub connection broke: a
// reconnect wakes every waiter, and would hide a release message that
// never came (on a Cluster, a fresh slot map may move a subscription).
func contend(t *testing.T, k contended, holderRC, waiterRC redis.UniversalClient, opts ...lockkit.Option) {
	t.Helper()
	ctx := redistest.Ctx(t, redistest.Hang)
	name := redistest.Unique(t)
	var reconnects reconnectLog
	holder := redistest.Lockkit(t, holderRC, append(opts, lockkit.WithTrace(&lockkit.Trace{Reconnected: reconnects.add}))...)
	started, trace := waitStarted()
	trace.Reconnected = reconnects.add
	waiter := redistest.Lockkit(t, waiterRC, append(opts, lockkit.WithTrace(trace))...)

	release, err := k.hold(ctx, holder, name)
	if err != nil {
		t.Fatalf("holder: %v", err)
	}
	type result struct {
		release func(context.Context) error
		err     error
	}
	got := make(chan result, 1)
	go func() {
		r, err := k.wait(ctx, waiter, name)
		got <- result{r, err}
	}()
	awaitWaiting(t, k, waiter, started)
	if err := release(ctx); err != nil {
		t.Fatalf("holder's release: %v", err)
	}
	r := redistest.Receive(t, got, wakeBound, "the waiter to get the released lock")
	if r.err != nil {
		t.Fatalf("waiter: %v", r.err)
	}
	if err := r.release(ctx); err != nil {
		t.Fatalf("waiter's release: %v", err)
	}
	if _, plain := waiterRC.(*redis.Client); plain {
		if causes := reconnects.causes(); len(causes) > 0 {
			t.Errorf("pub/sub reconnects: %q; want none", causes)
		}
	}
	if k.kind != "latch" {
		for _, n := range []string{name, name + ":a", name + ":b"} {
			redistest.AssertCleanWithin(t, holderRC, n, redistest.Hang)
		}
	}
}

// reconnectLog records the causes of the pub/sub reconnects a Trace
// reports.
type reconnectLog struct {
	mu   sync.Mutex
	errs []string
}

// add is a Trace's Reconnected hook.
func (l *reconnectLog) add(info lockkit.ReconnectInfo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, fmt.Sprint(info.Err))
}

// causes returns the causes recorded so far.
func (l *reconnectLog) causes() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.errs)
}

// waitStarted returns a Trace whose WaitStart closes the channel returned
// with it, the first time a wait starts.
func waitStarted() (<-chan struct{}, *lockkit.Trace) {
	started := make(chan struct{})
	var once sync.Once
	return started, &lockkit.Trace{WaitStart: func(lockkit.WaitStartInfo) { once.Do(func() { close(started) }) }}
}

// awaitWaiting waits until k's waiter on c is waiting: its wait started
// (started, from waitStarted's Trace on c) or, for a latch, which reports
// no waits, its subscription is kept by c's notifier.
func awaitWaiting(t *testing.T, k contended, c *lockkit.Client, started <-chan struct{}) {
	t.Helper()
	if k.kind != "latch" {
		redistest.Receive(t, started, redistest.Hang, "the waiter to start waiting")
		return
	}
	redistest.Eventually(t, redistest.Hang, "the latch's waiter to subscribe", func() bool {
		chans, _ := c.Notifier().Kept()
		return chans > 0
	})
}
