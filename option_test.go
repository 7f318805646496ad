package lockkit_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/watchdog"
)

// TestOptions_accept_their_bounds_and_refuse_past_them checks the limits
// the shared options document, at the limit and one step past it: a lease,
// watchdog timeout or maximum hold from MinLease to MaxLease, an owner id
// and a prefix of at most 512 bytes. A value past a limit is ErrInvalid
// naming the option, before anything is sent; one at the limit is
// accepted, by a lock and (but for WithOwner) as a Client default.
func TestOptions_accept_their_bounds_and_refuse_past_them(t *testing.T) {
	long := func(n int) string { return strings.Repeat("o", n) }
	for _, tc := range []struct {
		name      string
		ok, bad   lockkit.Option
		clientToo bool
	}{
		{"WithLease", lockkit.WithLease(lockkit.MinLease), lockkit.WithLease(lockkit.MinLease - time.Nanosecond), true},
		{"WithLease", lockkit.WithLease(lockkit.MaxLease), lockkit.WithLease(lockkit.MaxLease + time.Nanosecond), true},
		{"WithWatchdogTimeout", lockkit.WithWatchdogTimeout(lockkit.MinLease), lockkit.WithWatchdogTimeout(lockkit.MinLease - time.Nanosecond), true},
		{"WithWatchdogTimeout", lockkit.WithWatchdogTimeout(lockkit.MaxLease), lockkit.WithWatchdogTimeout(lockkit.MaxLease + time.Nanosecond), true},
		{"WithMaxHold", lockkit.WithMaxHold(lockkit.MinLease), lockkit.WithMaxHold(lockkit.MinLease - time.Nanosecond), true},
		{"WithMaxHold", lockkit.WithMaxHold(lockkit.MaxLease), lockkit.WithMaxHold(lockkit.MaxLease + time.Nanosecond), true},
		{"WithOwner", lockkit.WithOwner(long(512)), lockkit.WithOwner(long(513)), false},
		{"WithPrefix", lockkit.WithPrefix(long(512)), lockkit.WithPrefix(long(513)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lc, rc := redistest.Silent(t)
			ctx := redistest.Ctx(t, 10*time.Second)
			_, err := reentrant.New(lc, "x", tc.bad).TryLock(ctx)
			redistest.WantInvalid(t, "TryLock past the limit", err, tc.name)
			redistest.WantInvalid(t, "a Client default past the limit", lockkit.New(rc, tc.bad).Err(), tc.name)
			_, mini := redistest.Mini(t)
			if _, err := reentrant.New(redistest.Lockkit(t, mini), "x", tc.ok).HoldCount(ctx); err != nil {
				t.Errorf("HoldCount of a lock at the limit: %v", err)
			}
			if tc.clientToo {
				c := lockkit.New(mini, tc.ok)
				if err := c.Err(); err != nil {
					t.Errorf("a Client default at the limit: %v", err)
				}
				_ = c.Close()
			}
		})
	}
}

// TestOptions_at_their_limits_hold_a_lock takes a lock on a real server
// with the longest owner id and prefix accepted, and a lease of MaxLease
// set as a Client default: the keys and the lease are what the options
// say.
func TestOptions_at_their_limits_hold_a_lock(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	prefix, owner := strings.Repeat("p", 512), strings.Repeat("o", 512)
	lc := redistest.Lockkit(t, rc, lockkit.WithPrefix(prefix), lockkit.WithLease(lockkit.MaxLease))
	name := redistest.Unique(t)
	m := reentrant.New(lc, name, lockkit.WithOwner(owner))
	redistest.MustLock(t, m)
	ctx := redistest.Ctx(t, 10*time.Second)
	n, err := rc.HGet(ctx, prefix+":{"+name+"}", owner).Int()
	if n != 1 || err != nil {
		t.Fatalf("hold count under the long prefix and owner = %d, %v; want 1", n, err)
	}
	if ttl, err := m.TTL(ctx); err != nil || ttl < lockkit.MaxLease-time.Hour {
		t.Fatalf("TTL = %v, %v; want about %v", ttl, err, lockkit.MaxLease)
	}
	redistest.MustUnlock(t, m)
	if n, err := rc.Exists(context.Background(), prefix+":{"+name+"}").Result(); n != 0 || err != nil {
		t.Fatalf("the lock's hash after Unlock: EXISTS = %d, %v; want 0", n, err)
	}
}

// TestClient_defaults_apply_to_every_lock_and_a_locks_own_override_them:
// options given to New are the defaults of every lock of the Client (its
// prefix, its watchdog timeout), and a lock's own options override them.
func TestClient_defaults_apply_to_every_lock_and_a_locks_own_override_them(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	const wd = 20 * time.Second
	lc := redistest.Lockkit(t, rc, lockkit.WithPrefix("app"), lockkit.WithWatchdogTimeout(wd))
	ctx := redistest.Ctx(t, 10*time.Second)
	name := redistest.Unique(t)
	byDefault := reentrant.New(lc, name)
	own := reentrant.New(lc, name, lockkit.WithPrefix("own"), lockkit.WithLease(time.Hour))
	redistest.MustLock(t, byDefault)
	redistest.MustLock(t, own) // another prefix: another lock
	for _, tc := range []struct {
		key      string
		min, max time.Duration
	}{
		{"app:{" + name + "}", wd * 2 / 3, wd},
		{"own:{" + name + "}", time.Hour - time.Minute, time.Hour},
	} {
		if ttl, err := rc.PTTL(ctx, tc.key).Result(); err != nil || ttl < tc.min || ttl > tc.max {
			t.Errorf("PTTL %s = %v, %v; want %v to %v", tc.key, ttl, err, tc.min, tc.max)
		}
	}
	redistest.MustUnlock(t, byDefault)
	redistest.MustUnlock(t, own)
}

// failInfo is a go-redis hook that, while on, fails the script that
// stores holder information (the one command whose arguments carry the
// holder's pid), as a server that refuses it would.
type failInfo struct{ on atomic.Bool }

func (h *failInfo) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *failInfo) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		for _, a := range cmd.Args() {
			if s, ok := a.(string); ok && h.on.Load() && strings.Contains(s, `"pid"`) {
				cmd.SetErr(errors.New("ERR injected: holder info refused"))
				return cmd.Err()
			}
		}
		return next(ctx, cmd)
	}
}

func (h *failInfo) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestWithHolderInfo_costs_a_round_trip_per_fresh_hold_and_never_fails_a_Lock:
// the holder information takes one more command per fresh hold and none
// per re-entry, and a Lock whose information cannot be stored still holds
// the lock.
func TestWithHolderInfo_costs_a_round_trip_per_fresh_hold_and_never_fails_a_Lock(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	counter := redistest.CountCommands(rc)
	fail := &failInfo{}
	rc.AddHook(fail)
	name := redistest.Unique(t)
	m := reentrant.New(redistest.Lockkit(t, rc), name, lockkit.WithHolderInfo(), lockkit.WithOwner("job"))
	redistest.MustLock(t, m) // the scripts are loaded
	redistest.MustUnlock(t, m)

	counter.Reset()
	redistest.MustLock(t, m)
	if n := counter.Total(); n != 2 {
		t.Errorf("a fresh hold with holder info sent %d commands, want 2", n)
	}
	ctx := redistest.Ctx(t, 10*time.Second)
	if n, err := rc.HExists(ctx, "lockkit:{"+name+"}", ":m:job").Result(); !n || err != nil {
		t.Fatalf("holder info stored = %v, %v; want it there", n, err)
	}
	counter.Reset()
	redistest.MustLock(t, m)
	if n := counter.Total(); n != 1 {
		t.Errorf("a re-entry with holder info sent %d commands, want 1", n)
	}
	redistest.MustUnlock(t, m)
	redistest.MustUnlock(t, m)

	fail.on.Store(true)
	redistest.MustLock(t, m)
	redistest.WantHoldCount(t, m, 1)
	if n, err := rc.HExists(ctx, "lockkit:{"+name+"}", ":m:job").Result(); n || err != nil {
		t.Fatalf("holder info stored = %v, %v; want none, its script failed", n, err)
	}
	redistest.MustUnlock(t, m)
}

// TestLock_names_up_to_1024_bytes: a name of 1024 bytes, braces and all
// (percent-encoded inside the hash tag, so the key grows threefold), is
// locked and released on every kind of server, a Cluster included; a name
// one byte longer is ErrInvalid.
func TestLock_names_up_to_1024_bytes(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		lc := redistest.Lockkit(t, rc)
		base := redistest.Unique(t)
		name := base + strings.Repeat("}", 1024-len(base))
		a, b := reentrant.New(lc, name), reentrant.New(lc, name)
		redistest.MustLock(t, a)
		if ok, err := b.TryLock(redistest.Ctx(t, 10*time.Second)); ok || err != nil {
			t.Fatalf("TryLock by another owner = %v, %v; want false", ok, err)
		}
		redistest.MustUnlock(t, a)
		redistest.MustLock(t, b)
		redistest.MustUnlock(t, b)
		redistest.AssertClean(t, rc, name)
		_, err := reentrant.New(lc, name+"}").TryLock(redistest.Ctx(t, 10*time.Second))
		redistest.WantInvalid(t, "TryLock of a 1025-byte name", err, "name")
	})
}

// TestWithMaxHold_has_no_effect_with_WithLease checks that a maximum hold
// shorter than a fixed lease does not end the hold early: the hold ends
// with its lease, and its loss says so rather than watchdog.ErrMaxHold.
func TestWithMaxHold_has_no_effect_with_WithLease(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	lost := make(chan lockkit.LostInfo, 1)
	trace := lockkit.WithTrace(&lockkit.Trace{Lost: func(i lockkit.LostInfo) { lost <- i }})
	m := reentrant.New(redistest.Lockkit(t, rc), redistest.Unique(t),
		lockkit.WithLease(time.Second), lockkit.WithMaxHold(100*time.Millisecond), trace)
	redistest.MustLock(t, m)
	info := redistest.Receive(t, lost, redistest.Hang, "the hold's loss")
	if errors.Is(info.Err, watchdog.ErrMaxHold) || info.Held < time.Second/2 {
		t.Fatalf("hold lost after %v with %v; want its fixed lease of 1s to end it, not WithMaxHold", info.Held, info.Err)
	}
	err := m.Unlock(redistest.Ctx(t, 10*time.Second))
	redistest.WantErr(t, err, lockkit.ErrLost)
	if errors.Is(err, watchdog.ErrMaxHold) {
		t.Fatalf("Unlock = %v; want the fixed lease's end, not WithMaxHold", err)
	}
}
