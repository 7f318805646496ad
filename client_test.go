package lockkit_test

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/semaphore"
)

func TestMain(m *testing.M) { redistest.Main(m, nil) }

func TestNew_invalid_arguments(t *testing.T) {
	_, rc := redistest.Mini(t)
	var typedNil *redis.Client
	cases := []struct {
		name string
		c    *lockkit.Client
	}{
		{"nil client", lockkit.New(nil)},
		{"typed nil client", lockkit.New(typedNil)},
		{"nil option", lockkit.New(rc, nil)},
		{"bad lease", lockkit.New(rc, lockkit.WithLease(0))},
		{"owner is not a Client default", lockkit.New(rc, lockkit.WithOwner("job"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			redistest.WantErr(t, tc.c.Err(), lockkit.ErrInvalid)
			if err := tc.c.Close(); err != nil {
				t.Fatalf("Close of an invalid Client = %v", err)
			}
			redistest.WantErr(t, tc.c.Err(), lockkit.ErrInvalid)
		})
	}
	var nilClient *lockkit.Client
	redistest.WantErr(t, nilClient.Err(), lockkit.ErrInvalid)
}

func TestClose_is_idempotent_and_reports_ErrClosed(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := lockkit.New(rc, lockkit.WithPrefix("app"), lockkit.WithWatchdogTimeout(10*time.Second))
	if err := c.Err(); err != nil {
		t.Fatalf("Err of a new Client = %v", err)
	}
	if c.Redis() != redis.UniversalClient(rc) || c.Notifier() == nil || c.Watchdog() == nil || len(c.Options()) != 2 {
		t.Fatal("accessors do not return what the Client was made with")
	}
	select {
	case <-c.Done():
		t.Fatal("Done closed before Close")
	default:
	}
	for range 2 {
		if err := c.Close(); err != nil {
			t.Fatalf("Close = %v", err)
		}
	}
	<-c.Done()
	if !errors.Is(c.Err(), lockkit.ErrClosed) {
		t.Fatalf("Err after Close = %v, want ErrClosed", c.Err())
	}
	// The go-redis client stays usable: Close does not close it.
	if err := rc.Ping(redistest.Ctx(t, time.Second)).Err(); err != nil {
		t.Fatalf("go-redis client after Close: %v", err)
	}
}

// TestClient_Locals_keeps_values_per_Client checks that what one Client's
// locks share in memory is that Client's alone, and stays until deleted.
func TestClient_Locals_keeps_values_per_Client(t *testing.T) {
	_, rc := redistest.Mini(t)
	a, b := redistest.Lockkit(t, rc), redistest.Lockkit(t, rc)
	type key struct{}
	a.Locals(func(m map[any]any) { m[key{}] = 1 })
	a.Locals(func(m map[any]any) {
		if m[key{}] != 1 {
			t.Errorf("a's value = %v, want 1", m[key{}])
		}
		delete(m, key{})
	})
	b.Locals(func(m map[any]any) {
		if len(m) != 0 {
			t.Errorf("b sees %v, want nothing of a's", m)
		}
	})
	a.Locals(func(m map[any]any) {
		if len(m) != 0 {
			t.Errorf("a keeps %v after the delete", m)
		}
	})
}

// TestClose_reports_open_holds_lost_with_ErrClosed: a hold still open when
// its Client closes is reported lost: its lost signal closes, the Client's
// Trace gets Lost, its Context ends, and its Unlock returns an error, each
// matching both ErrLost and ErrClosed. Close does not release it in
// Redis: another Client sees the lock held, with its lease running.
func TestClose_reports_open_holds_lost_with_ErrClosed(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	lost := make(chan lockkit.LostInfo, 1)
	lc := redistest.Lockkit(t, rc, lockkit.WithTrace(&lockkit.Trace{Lost: func(i lockkit.LostInfo) { lost <- i }}))
	name := redistest.Unique(t)
	m := reentrant.New(lc, name)
	redistest.MustLock(t, m)
	ctx := redistest.Ctx(t, 10*time.Second)
	held := m.Context(ctx)
	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, m.Lost(), 10*time.Second, "the lost signal")
	info := redistest.Receive(t, lost, 10*time.Second, "Trace.Lost")
	redistest.WantErr(t, info.Err, lockkit.ErrLost, lockkit.ErrClosed)
	redistest.WantErr(t, context.Cause(held), lockkit.ErrLost, lockkit.ErrClosed)
	other := reentrant.New(redistest.Lockkit(t, rc), name)
	if ok, err := other.IsLocked(ctx); !ok || err != nil {
		t.Fatalf("IsLocked by another Client after Close = %v, %v; want the hold kept in Redis", ok, err)
	}
	if ttl, err := other.TTL(ctx); ttl <= 0 || err != nil {
		t.Fatalf("TTL after Close = %v, %v; want the lease running", ttl, err)
	}
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrLost, lockkit.ErrClosed)
}

// TestClient_Go_started_while_Close_waits_is_waited_for_too: Close waits
// for what Go started, and for what Go starts while Close waits (the
// clean-up of a call woken by Close, say); once Close returned, Go still
// runs f, in a goroutine of its own.
func TestClient_Go_started_while_Close_waits_is_waited_for_too(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := lockkit.New(rc)
	release, ran, later := make(chan struct{}), make(chan struct{}), make(chan struct{})
	c.Go(func() { <-release; close(ran) })
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	<-c.Done()
	// Close waits for the first f already: Go returns at once, and Close
	// waits for the second f too.
	started := make(chan struct{})
	go func() {
		c.Go(func() { <-ran; close(later) })
		close(started)
	}()
	redistest.Receive(t, started, 10*time.Second, "Go while Close waits")
	close(release)
	if err := redistest.Receive(t, closed, 10*time.Second, "Close"); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []chan struct{}{ran, later} {
		select {
		case <-ch:
		default:
			t.Fatal("Close returned before what Go started")
		}
	}
	after := make(chan struct{})
	c.Go(func() { close(after) })
	redistest.Receive(t, after, 10*time.Second, "f given to Go after Close")
}

// TestClose_under_a_waiting_Acquire_lets_it_return_while_the_server_is_silent:
// an Acquire waiting in the queue when the Client closes returns ErrClosed
// at once, even though the server does not answer the clean-up it starts
// then (its place given up): the clean-up goes on in the background
// rather than holding the call up until the server answers.
func TestClose_under_a_waiting_Acquire_lets_it_return_while_the_server_is_silent(t *testing.T) {
	srv, rc, silent := silentServer(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	if _, err := semaphore.New(redistest.Lockkit(t, srv.Client(t)), name, 1).Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	lc := lockkit.New(rc)
	acquired := make(chan error, 1)
	go func() {
		_, err := semaphore.New(lc, name, 1).Acquire(ctx, 1)
		acquired <- err
	}()
	admin := srv.Client(t)
	redistest.Eventually(t, redistest.Hang, "the Acquire to wait in the queue", func() bool {
		n, err := admin.ZCard(ctx, "lockkit:{"+name+"}:waiters").Result()
		return n == 1 && err == nil
	})
	silent.On()
	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, redistest.Receive(t, acquired, redistest.Hang, "the Acquire"), lockkit.ErrClosed)
	if silent.Held() == 0 {
		t.Error("the Acquire returned, but its clean-up was not held up by the silent server")
	}
	silent.Off()
	// The clean-up ran in the background: the place is given up.
	redistest.Eventually(t, redistest.Hang, "the place to be given up", func() bool {
		n, err := admin.ZCard(ctx, "lockkit:{"+name+"}:waiters").Result()
		return n == 0 && err == nil
	})
}

// TestClose_waits_for_a_late_acquire_to_be_undone: a Lock whose ctx ended
// while the server did not answer leaves its request behind; Close waits
// for it, and for the undo of the hold it took when its reply came at
// last, so that once Close returns the acquire has run and the lock is
// free in Redis.
func TestClose_waits_for_a_late_acquire_to_be_undone(t *testing.T) {
	srv, rc, silent := silentServer(t)
	lc := lockkit.New(rc)
	name := redistest.Unique(t)
	m := reentrant.New(lc, name)
	silent.On()
	redistest.WantErr(t, m.Lock(redistest.Ctx(t, 100*time.Millisecond)), lockkit.ErrNotObtained, context.DeadlineExceeded)
	closed := make(chan error, 1)
	go func() { closed <- lc.Close() }()
	<-lc.Done()
	silent.Off() // the acquire runs now, late
	if err := redistest.Receive(t, closed, redistest.Hang, "Close"); err != nil {
		t.Fatal(err)
	}
	// The acquire ran (its token's counter is there) and was undone.
	ctx, admin := redistest.Ctx(t, 10*time.Second), srv.Client(t)
	if n, err := admin.Exists(ctx, "lockkit:{"+name+"}:fence").Result(); n != 1 || err != nil {
		t.Fatalf("the fencing counter once Close returned: EXISTS = %d, %v; want 1 (the late acquire ran)", n, err)
	}
	if n, err := admin.Exists(ctx, "lockkit:{"+name+"}").Result(); n != 0 || err != nil {
		t.Fatalf("the lock's hash once Close returned: EXISTS = %d, %v; want 0 (the late acquire undone)", n, err)
	}
}

// subscribed matches a connection with a subscription in CLIENT LIST.
var subscribed = regexp.MustCompile(`\bs?sub=[1-9]`)

// TestNew_does_no_IO_and_starts_nothing: New sends nothing and starts no
// goroutine; an uncontended Lock and Unlock open no pub/sub connection
// (it opens with the first wait). An invalid Client has no notifier or
// watchdog.
func TestNew_does_no_IO_and_starts_nothing(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	counter := redistest.CountCommands(rc)
	before := goleak.IgnoreCurrent()
	lc := redistest.Lockkit(t, rc)
	if err := goleak.Find(before); err != nil {
		t.Fatalf("New started goroutines: %v", err)
	}
	if n := counter.Total(); n != 0 {
		t.Fatalf("New sent %d commands, want 0", n)
	}
	m := reentrant.New(lc, redistest.Unique(t))
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
	ctx := redistest.Ctx(t, 10*time.Second)
	if list, err := srv.Client(t).ClientList(ctx).Result(); err != nil || subscribed.MatchString(list) {
		t.Fatalf("CLIENT LIST after an uncontended lock = %q, %v; want no pub/sub connection", list, err)
	}
	if c := lockkit.New(nil); c.Notifier() != nil || c.Watchdog() != nil {
		t.Fatal("an invalid Client has a notifier or a watchdog")
	}
}

// silentServer starts a server and returns it, with a go-redis client of
// it whose scripts a Silence holds up once turned on (it is turned off at
// the test's end).
func silentServer(t *testing.T) (*redistest.Server, *redis.Client, *redistest.Silence) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	silent := &redistest.Silence{Max: 2 * redistest.Hang, Match: redistest.IsScript}
	t.Cleanup(silent.Off)
	rc.AddHook(silent)
	return srv, rc, silent
}
