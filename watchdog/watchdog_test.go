package watchdog_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

func TestMain(m *testing.M) { redistest.Main(m, nil) }

// renewScript extends KEYS[1] by ARGV[1] ms if it exists.
var renewScript = redis.NewScript(`
if redis.call('exists', KEYS[1]) == 1 then
  redis.call('pexpire', KEYS[1], ARGV[1])
  return 1
end
return 0`)

// pipelineCounter counts the pipelines sent through a client: all of
// them, and those that have not returned yet.
type pipelineCounter struct{ sent, inFlight atomic.Int64 }

func (p *pipelineCounter) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (p *pipelineCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (p *pipelineCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		p.sent.Add(1)
		p.inFlight.Add(1)
		defer p.inFlight.Add(-1)
		return next(ctx, cmds)
	}
}

// stallable starts a server and returns it with a client of it whose
// read timeout (10 s) outlasts the stalls of the tests, so that a renewal
// stays in flight until the stall ends, and the counter of the client's
// pipelines.
func stallable(t *testing.T) (*redistest.Server, *redis.Client, *pipelineCounter) {
	t.Helper()
	srv := redistest.StartServer(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { _ = c.Close() })
	flying := &pipelineCounter{}
	c.AddHook(flying)
	return srv, c, flying
}

func lease(key string, ttl time.Duration, lost chan<- error) watchdog.Lease {
	return watchdog.Lease{
		Script: renewScript,
		Keys:   []string{key},
		Args:   []any{ttl.Milliseconds()},
		TTL:    ttl,
		OnLost: func(cause error) { lost <- cause },
	}
}

// watchedKey sets a key of its own on c that expires after ttl, and
// starts a hold of w on it whose lease counts from just before the key
// was set; the hold reports its loss on the channel returned, and stops
// when the test ends.
func watchedKey(t *testing.T, c redis.UniversalClient, w *watchdog.Watchdog, ttl time.Duration) (*watchdog.Hold, string, <-chan error) {
	t.Helper()
	key := redistest.Unique(t)
	since := time.Now()
	if err := c.Set(redistest.Ctx(t, 5*time.Second), key, 1, ttl).Err(); err != nil {
		t.Fatal(err)
	}
	lost := make(chan error, 2)
	h := w.Register()
	t.Cleanup(h.Stop)
	h.Start(lease(key, ttl, lost), since)
	return h, key, lost
}

func TestWatchdog_renews_in_batches(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	pipes := &pipelineCounter{}
	c.AddHook(pipes)
	ctx := context.Background()
	const ttl = 300 * time.Millisecond
	w := newWatchdog(t, c)
	lost := make(chan error, 10)
	var (
		keys  []string
		holds []*watchdog.Hold
	)
	for range 10 {
		key := redistest.Unique(t)
		since := time.Now()
		if err := c.Set(ctx, key, 1, ttl).Err(); err != nil {
			t.Fatal(err)
		}
		h := w.Register()
		h.Start(lease(key, ttl, lost), since)
		keys = append(keys, key)
		holds = append(holds, h)
	}
	// Several leases pass; the keys stay because they are renewed.
	wantNoLoss(t, lost, 4*ttl, "hold lost")
	for _, key := range keys {
		if n, _ := c.Exists(ctx, key).Result(); n != 1 {
			t.Errorf("key %s expired although renewed", key)
		}
	}
	for _, h := range holds {
		h.Stop()
	}
	if w.Len() != 0 {
		t.Fatalf("%d holds left after Stop", w.Len())
	}
	// Ten holds due together share each round trip: about one pipeline per
	// period (ttl/3) rather than ten.
	if n := pipes.sent.Load(); n > 20 {
		t.Fatalf("%d pipelines for 10 holds over 4 leases; renewals are not batched", n)
	}
}

// wantNoLoss fails the test, saying what, if a loss is reported on lost
// within d.
func wantNoLoss(t *testing.T, lost <-chan error, d time.Duration, what string) {
	t.Helper()
	select {
	case err := <-lost:
		t.Fatalf("%s: %v", what, err)
	case <-time.After(d):
	}
}

// watched is a key kept alive by a watchdog hold.
type watched struct {
	key     string
	hold    *watchdog.Hold
	lost    chan error // receives the cause when the hold is lost
	started time.Time  // when its lease began
}

// watch sets a key of its own on c with ttl and has the watchdog of c
// renew it.
func watch(t *testing.T, c redis.UniversalClient, ttl time.Duration) watched {
	t.Helper()
	w := watched{key: redistest.Unique(t), lost: make(chan error, 1)}
	w.started = time.Now()
	if err := c.Set(context.Background(), w.key, 1, ttl).Err(); err != nil {
		t.Fatal(err)
	}
	w.hold = newWatchdog(t, c).Register()
	w.hold.Start(lease(w.key, ttl, w.lost), w.started)
	return w
}

func TestWatchdog_reports_hold_gone(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	w := watch(t, c, 300*time.Millisecond)
	c.Del(context.Background(), w.key)
	if cause := redistest.Receive(t, w.lost, 5*time.Second, "the vanished hold to be reported"); cause != nil {
		t.Fatalf("cause = %v, want nil for a vanished hold", cause)
	}
	w.hold.Stop() // idempotent after loss
}

func TestWatchdog_reports_persistent_errors_after_lease(t *testing.T) {
	srv := redistest.StartServer(t)
	const ttl = 600 * time.Millisecond
	w := watch(t, srv.Client(t), ttl)
	srv.Stop(t)
	cause := redistest.Receive(t, w.lost, 10*time.Second, "the hold with a dead server to be reported")
	redistest.WantErr(t, cause, watchdog.ErrNotRenewed)
	var ne net.Error
	if !errors.As(cause, &ne) {
		t.Fatalf("cause = %v; want it to wrap the last renewal's network error", cause)
	}
	// Reported no earlier than one retry interval before the lease could
	// lapse.
	if d := time.Since(w.started); d < ttl-ttl/10 {
		t.Fatalf("reported lost after %v, well before the lease (%v) could have lapsed", d, ttl)
	}
	w.hold.Stop()
}

func TestWatchdog_loads_flushed_scripts(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	ctx := context.Background()
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	const ttl = 300 * time.Millisecond
	w := watch(t, c, ttl)
	defer w.hold.Stop()
	wantNoLoss(t, w.lost, 3*ttl, "hold lost after SCRIPT FLUSH")
	if n, _ := c.Exists(ctx, w.key).Result(); n != 1 {
		t.Fatal("key expired: renewal failed after SCRIPT FLUSH")
	}
}

func TestHold_Suspend_stops_renewal(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	w := watch(t, c, 300*time.Millisecond)
	w.hold.Suspend()
	// Suspended: the key expires, and the loss is not reported.
	redistest.Eventually(t, 5*time.Second, "the suspended hold's key to expire", func() bool {
		n, err := c.Exists(context.Background(), w.key).Result()
		return err == nil && n == 0
	})
	w.hold.Stop()
	select {
	case err := <-w.lost:
		t.Fatalf("OnLost called for a suspended, stopped hold: %v", err)
	default:
	}
}

func TestRegister_then_Stop_without_Start(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	w := newWatchdog(t, c)
	h := w.Register()
	if w.Len() != 1 {
		t.Fatal("registered hold not counted")
	}
	h.Stop()
	if w.Len() != 0 {
		t.Fatal("stopped hold still counted")
	}
}

// newWatchdog returns a Watchdog of c, closed in t.Cleanup.
func newWatchdog(t testing.TB, c redis.UniversalClient) *watchdog.Watchdog {
	w := watchdog.New(c)
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func TestClose_reports_holds_lost_with_ErrClosed(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	w := watchdog.New(c)
	key := redistest.Unique(t)
	const ttl = time.Minute
	if err := c.Set(redistest.Ctx(t, time.Second), key, 1, ttl).Err(); err != nil {
		t.Fatal(err)
	}
	lost := make(chan error, 2)
	w.Register().Start(lease(key, ttl, lost), time.Now())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, redistest.Receive(t, lost, 5*time.Second, "OnLost after Close"), watchdog.ErrClosed)
	// A hold started after Close is reported lost at once.
	w.Register().Start(lease(key, ttl, lost), time.Now())
	redistest.WantErr(t, redistest.Receive(t, lost, 5*time.Second, "OnLost of a hold started after Close"), watchdog.ErrClosed)
	if w.Len() != 0 {
		t.Fatalf("Len after Close = %d, want 0", w.Len())
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

// TestFixedLease_ends_a_TTL_after_its_latest_renewal starts a fixed lease
// and reports a renewal with Renewed: one within the lease extends it, so
// that it ends a TTL after the renewal; one older than the lease's start
// (a reply that comes late, say) leaves the lease ending where it did, as
// Renewed promises, so the hold is not reported over before its own end
// (less the margin, as every lease).
func TestFixedLease_ends_a_TTL_after_its_latest_renewal(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ttl, renewed time.Duration // renewed: the renewal's time, from the lease's start
		end          time.Duration // the soonest the lease may be reported over, from its start
	}{
		{"Renewed_extends_it", 200 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond},
		{"Renewed_never_moves_the_end_earlier", 300 * time.Millisecond, -150 * time.Millisecond, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := redistest.Mini(t)
			w := newWatchdog(t, c)
			lost := make(chan error, 1)
			h := w.Register()
			start := time.Now()
			h.Start(watchdog.Lease{TTL: tc.ttl, OnLost: func(cause error) { lost <- cause }}, start)
			h.Renewed(start.Add(tc.renewed))
			redistest.WantErr(t, redistest.Receive(t, lost, 5*time.Second, "the end of the fixed lease"), watchdog.ErrLeaseEnded)
			end := tc.end - watchdog.Margin(tc.ttl)
			if ended := time.Since(start); ended < end {
				t.Fatalf("fixed lease reported over after %v, before its end %v less the margin", ended, tc.end)
			}
		})
	}
}

func TestCheck_verifies_every_hold_at_once(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	w := newWatchdog(t, c)
	ctx := redistest.Ctx(t, 5*time.Second)
	const ttl = 30 * time.Second // next renewal due in 10 s
	lost := make(chan error, 2)
	kept, gone := redistest.Unique(t), redistest.Unique(t)
	for _, key := range []string{kept, gone} {
		if err := c.Set(ctx, key, 1, ttl).Err(); err != nil {
			t.Fatal(err)
		}
		w.Register().Start(lease(key, ttl, lost), time.Now())
	}
	if err := c.Del(ctx, gone).Err(); err != nil {
		t.Fatal(err)
	}
	w.Check()
	if err := redistest.Receive(t, lost, 5*time.Second, "the vanished hold to be reported long before its renewal"); err != nil {
		t.Fatalf("OnLost cause = %v, want nil (gone)", err)
	}
	redistest.NotYet(t, lost, "the kept hold was reported lost")
	if w.Len() != 1 {
		t.Fatalf("Len = %d, want the kept hold only", w.Len())
	}
}

// pipelineKeys records the first keys of the scripts of each pipeline sent
// through a client.
type pipelineKeys struct {
	mu    sync.Mutex
	pipes [][]string // guarded by mu
}

func (p *pipelineKeys) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (p *pipelineKeys) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (p *pipelineKeys) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		var keys []string
		for _, cmd := range cmds {
			if args := cmd.Args(); len(args) > 3 { // evalsha, sha, numkeys, key, ...
				keys = append(keys, fmt.Sprint(args[3]))
			}
		}
		p.mu.Lock()
		p.pipes = append(p.pipes, keys)
		p.mu.Unlock()
		return next(ctx, cmds)
	}
}

func TestWatchdog_renews_in_one_pipeline_per_shard_on_Cluster(t *testing.T) {
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	pipes := &pipelineKeys{}
	cc.AddHook(pipes)
	ctx := redistest.Ctx(t, 10*time.Second)
	const ttl = 300 * time.Millisecond
	w := newWatchdog(t, cc)
	lost := make(chan error, 12)
	master := map[string]string{} // key → address of its master
	var holds []*watchdog.Hold
	for _, name := range redistest.NamesOnDistinctMasters(t, cc, 3) {
		for range 4 {
			key := "{" + name + "}:" + redistest.Unique(t)
			since := time.Now()
			if err := cc.Set(ctx, key, 1, ttl).Err(); err != nil {
				t.Fatal(err)
			}
			node, err := cc.MasterForKey(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			master[key] = node.Options().Addr
			h := w.Register()
			h.Start(lease(key, ttl, lost), since)
			holds = append(holds, h)
		}
	}
	wantNoLoss(t, lost, 4*ttl, "hold lost")
	for _, h := range holds {
		h.Stop()
	}
	pipes.mu.Lock()
	defer pipes.mu.Unlock()
	for _, keys := range pipes.pipes {
		for _, key := range keys[1:] {
			if master[key] != master[keys[0]] {
				t.Fatalf("one pipeline renews %s on %s and %s on %s; want one pipeline per master",
					keys[0], master[keys[0]], key, master[key])
			}
		}
	}
	// Four holds due together on each master share each round trip: about
	// one pipeline per master and period (ttl/3) rather than twelve.
	if n := len(pipes.pipes); n > 3*20 {
		t.Fatalf("%d pipelines for 12 holds on 3 masters over 4 leases; renewals are not batched", n)
	}
}
