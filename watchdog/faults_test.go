package watchdog_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// renewalLog is a go-redis hook that records, for each key, when the last
// renewal that renewed it (the script returned 1) was sent. The server's
// lease of that key runs at least until then plus the TTL: the server
// counts it from when it ran the script, which is later.
type renewalLog struct {
	mu        sync.Mutex
	confirmed map[string]time.Time // key → send time of its last renewal; guarded by mu
	changed   chan struct{}        // signalled when confirmed changes
}

func newRenewalLog() *renewalLog {
	return &renewalLog{confirmed: map[string]time.Time{}, changed: make(chan struct{}, 1)}
}

func (l *renewalLog) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (l *renewalLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (l *renewalLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		sent := time.Now()
		err := next(ctx, cmds)
		l.mu.Lock()
		for _, cmd := range cmds {
			args := cmd.Args() // evalsha|eval, sha|source, numkeys, key, ...
			if n, ok := cmd.(*redis.Cmd); ok && len(args) > 3 {
				if v, err := n.Int64(); err == nil && v == 1 {
					l.confirmed[fmt.Sprint(args[3])] = sent
				}
			}
		}
		l.mu.Unlock()
		select {
		case l.changed <- struct{}{}:
		default:
		}
		return err
	}
}

// last returns when the last renewal of key that renewed it was sent, or
// the zero time.
func (l *renewalLog) last(key string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.confirmed[key]
}

// waitRenewed waits until key has been renewed after since.
func (l *renewalLog) waitRenewed(t *testing.T, key string, since time.Time) {
	t.Helper()
	redistest.Eventually(t, 10*time.Second, "a renewal of "+key, func() bool {
		return l.last(key).After(since)
	})
}

// timedHold is a hold whose OnLost records when it was called.
type timedHold struct {
	key    string
	hold   *watchdog.Hold
	lost   chan error // receives the cause
	lostAt chan time.Time
}

// timedWatch sets key on c with ttl and has w renew it.
func timedWatch(t *testing.T, c redis.UniversalClient, w *watchdog.Watchdog, key string, ttl time.Duration) timedHold {
	t.Helper()
	th := timedHold{key: key, lost: make(chan error, 1), lostAt: make(chan time.Time, 1)}
	since := time.Now()
	if err := c.Set(redistest.Ctx(t, 5*time.Second), key, 1, ttl).Err(); err != nil {
		t.Fatal(err)
	}
	th.hold = w.Register()
	th.hold.Start(watchdog.Lease{
		Script: renewScript,
		Keys:   []string{key},
		Args:   []any{ttl.Milliseconds()},
		TTL:    ttl,
		OnLost: func(cause error) {
			th.lostAt <- time.Now()
			th.lost <- cause
		},
	}, since)
	return th
}

// wantLostBeforeLease waits for th to be reported lost and checks that it
// was reported before the lease set by its last confirmed renewal could
// lapse on the server. Call it once every renewal in flight has returned
// (after Close), so that log is complete.
func wantLostBeforeLease(t *testing.T, th timedHold, lostAt time.Time, log *renewalLog, ttl time.Duration) {
	t.Helper()
	last := log.last(th.key)
	if last.IsZero() {
		t.Fatalf("%s: no renewal confirmed", th.key)
	}
	if end := last.Add(ttl); !lostAt.Before(end) {
		t.Fatalf("%s reported lost %v after its lease could have lapsed (last confirmed renewal sent at +0, lease %v, reported at +%v): two owners could hold it",
			th.key, lostAt.Sub(end), ttl, lostAt.Sub(last))
	}
	t.Logf("%s reported lost %v after its last confirmed renewal was sent (lease %v)", th.key, lostAt.Sub(last), ttl)
}

func TestWatchdog_reports_loss_before_lease_lapses_on_stalled_server(t *testing.T) {
	srv := redistest.StartServer(t)
	// go-redis's defaults: a 5 s ReadTimeout, and ctx deadlines not applied
	// to socket reads, so a renewal sent to the stalled server blocks for
	// the whole stall.
	c := srv.Client(t)
	log := newRenewalLog()
	c.AddHook(log)
	const ttl = 600 * time.Millisecond
	w := watchdog.New(c)
	defer w.Close()
	th := timedWatch(t, c, w, redistest.Unique(t), ttl)
	log.waitRenewed(t, th.key, time.Time{})
	// Right after a renewal, the server stops answering for longer than
	// the lease.
	srv.Stall(t, 2*time.Second)
	lostAt := redistest.Receive(t, th.lostAt, 10*time.Second, "the hold on the stalled server to be reported lost")
	th.hold.Stop()
	_ = w.Close() // every renewal in flight has returned: log is complete
	wantLostBeforeLease(t, th, lostAt, log, ttl)
	redistest.WantErr(t, <-th.lost, watchdog.ErrNotRenewed)
}

func TestWatchdog_stalled_cluster_node_costs_no_hold_on_another(t *testing.T) {
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	log := newRenewalLog()
	cc.AddHook(log)
	names := redistest.NamesOnDistinctMasters(t, cc, 2)
	stalledKey, healthyKey := "{"+names[0]+"}", "{"+names[1]+"}"
	const (
		ttl = 400 * time.Millisecond
		// Shorter than the cluster-node-timeout (2 s), so that the other
		// nodes never mark the stalled one failed and refuse every key.
		stall = 1500 * time.Millisecond
	)
	w := watchdog.New(cc)
	defer w.Close()
	stalled := timedWatch(t, cc, w, stalledKey, ttl)
	healthy := timedWatch(t, cc, w, healthyKey, ttl)
	log.waitRenewed(t, stalledKey, time.Time{})
	log.waitRenewed(t, healthyKey, time.Time{})

	ctx := redistest.Ctx(t, 5*time.Second)
	node, err := cc.MasterForKey(ctx, stalledKey)
	if err != nil {
		t.Fatal(err)
	}
	var srv *redistest.Server
	for _, s := range cl.Servers() {
		if s.Addr() == node.Options().Addr {
			srv = s
		}
	}
	if srv == nil {
		t.Fatalf("no node of the cluster serves %s at %s", stalledKey, node.Options().Addr)
	}
	srv.Stall(t, stall)
	stallStart := time.Now()

	// Through the stall and a lease beyond, the hold on the healthy master
	// keeps its lease on the server and is never reported lost.
	tick := time.NewTicker(ttl / 8)
	defer tick.Stop()
	for until := stallStart.Add(stall + ttl); time.Now().Before(until); {
		select {
		case cause := <-healthy.lost:
			t.Fatalf("the hold on the healthy master was reported lost during the stall of another: %v", cause)
		case <-tick.C:
		}
		if pttl, err := cc.PTTL(ctx, healthyKey).Result(); err != nil || pttl <= 0 {
			t.Fatalf("the healthy master's key has no lease %v after another master stalled: PTTL %v, %v",
				time.Since(stallStart), pttl, err)
		}
	}
	if last := log.last(healthyKey); !last.After(stallStart.Add(stall / 2)) {
		t.Fatalf("the hold on the healthy master was last renewed %v after the stall began; want renewals all through it",
			last.Sub(stallStart))
	}
	lostAt := redistest.Receive(t, stalled.lostAt, 10*time.Second, "the hold on the stalled master to be reported lost")
	healthy.hold.Stop()
	stalled.hold.Stop()
	_ = w.Close()
	wantLostBeforeLease(t, stalled, lostAt, log, ttl)
	redistest.WantErr(t, <-stalled.lost, watchdog.ErrNotRenewed)
}
