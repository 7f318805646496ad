package lockkit_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/spin"
)

// The classes of calls, by what they promise when their ctx ends.
const (
	// acquire: an error matching both ErrNotObtained and ctx.Err().
	acquire = iota
	// query: an error matching ctx.Err() (ForceUnlock, CountDown and
	// SetPermits count as queries: they change nothing when not sent).
	query
	// release: runs even when ctx has ended already; an error matching
	// ctx.Err() when the server does not answer in time.
	release
)

// kindCall is one call of one lock kind, with the ctx it is given.
type kindCall struct {
	name  string
	class int
	call  func(context.Context) error
	// local is set for a call that a live ctx may get answered from
	// memory, without Redis: a TryLock or HoldCount in cohort mode, say.
	local bool
}

// callSet is every call of every kind, on locks set up for them: held by
// another owner (so that an acquire would wait), or by the caller (so that
// a release has something to free).
type callSet struct {
	calls []kindCall
	// names are the lock names the calls use, for AssertClean.
	names []string
	// held reports, for each hold the set-up took and no call releases,
	// whether it is still held.
	held map[string]func(context.Context) (bool, error)
	// frees releases those holds.
	frees []func(context.Context) error
	// count returns the latch's count, which no call may have changed.
	count func(context.Context) (int, error)
}

// everyCall sets up, on the Client lc (and for a RedLock on lcs, whose
// first is lc), the locks of every kind that the calls of a callSet need,
// and returns the set. Every hold is taken on lc, so that its Client's
// network is what fails the calls.
func everyCall(t *testing.T, lc *lockkit.Client, lcs []*lockkit.Client) *callSet {
	t.Helper()
	ctx := redistest.Ctx(t, redistest.Hang)
	base := redistest.Unique(t)
	s := &callSet{held: map[string]func(context.Context) (bool, error){}}
	add := func(class int, name string, call func(context.Context) error) {
		s.calls = append(s.calls, kindCall{name: name, class: class, call: call})
	}
	lockName := func(kind string) string {
		n := base + "-" + kind
		s.names = append(s.names, n)
		return n
	}
	for _, k := range []struct {
		kind string
		new  func(*lockkit.Client, string, ...lockkit.Option) *reentrant.Mutex
	}{{"reentrant", reentrant.New}, {"reentrant-cohort", cohortMutex}, {"fair", fair.New}, {"spin", spin.New}} {
		name := lockName(k.kind)
		holder, other, released := k.new(lc, name), k.new(lc, name), k.new(lc, lockName(k.kind+"-released"))
		redistest.MustLock(t, holder)
		redistest.MustLock(t, released)
		s.held[k.kind] = holder.IsLocked
		s.frees = append(s.frees, holder.Unlock)
		add(acquire, k.kind+" Lock", other.Lock)
		add(acquire, k.kind+" TryLock", func(c context.Context) error { _, err := other.TryLock(c); return err })
		add(query, k.kind+" HoldCount", func(c context.Context) error { _, err := other.HoldCount(c); return err })
		add(query, k.kind+" IsLocked", func(c context.Context) error { _, err := other.IsLocked(c); return err })
		add(query, k.kind+" TTL", func(c context.Context) error { _, err := other.TTL(c); return err })
		add(query, k.kind+" ForceUnlock", func(c context.Context) error { _, err := other.ForceUnlock(c); return err })
		add(release, k.kind+" Unlock", released.Unlock)
	}
	for i, c := range s.calls {
		// The holder is of the same cohort: the process holds the lock.
		s.calls[i].local = c.name == "reentrant-cohort TryLock" || c.name == "reentrant-cohort HoldCount"
	}

	name := lockName("rwlock")
	writer, other := rwlock.New(lc, name), rwlock.New(lc, name)
	if err := writer.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	s.held["rwlock"] = writer.IsLocked
	s.frees = append(s.frees, writer.Unlock)
	reader, writerToo := rwlock.New(lc, lockName("rwlock-read")), rwlock.New(lc, lockName("rwlock-write"))
	if err := reader.RLock(ctx); err != nil {
		t.Fatal(err)
	}
	redistest.MustLock(t, writerToo)
	add(acquire, "rwlock Lock", other.Lock)
	add(acquire, "rwlock TryLock", func(c context.Context) error { _, err := other.TryLock(c); return err })
	add(acquire, "rwlock RLock", other.RLock)
	add(acquire, "rwlock TryRLock", func(c context.Context) error { _, err := other.TryRLock(c); return err })
	add(query, "rwlock State", func(c context.Context) error { _, err := other.State(c); return err })
	add(query, "rwlock RHoldCount", func(c context.Context) error { _, err := other.RHoldCount(c); return err })
	add(query, "rwlock ForceUnlock", func(c context.Context) error { _, err := other.ForceUnlock(c); return err })
	add(release, "rwlock RUnlock", reader.RUnlock)
	add(release, "rwlock Unlock", writerToo.Unlock)

	a, b := lockName("multi-a"), lockName("multi-b")
	multiHeld := multilock.New([]lockkit.Locker{reentrant.New(lc, a), reentrant.New(lc, b)})
	redistest.MustLock(t, multiHeld)
	multi := multilock.New([]lockkit.Locker{reentrant.New(lc, a), reentrant.New(lc, b)})
	s.held["multilock"] = multi.IsLocked
	s.frees = append(s.frees, multiHeld.Unlock)
	multiReleased := multilock.New([]lockkit.Locker{reentrant.New(lc, lockName("multi-c")), reentrant.New(lc, lockName("multi-d"))})
	redistest.MustLock(t, multiReleased)
	add(acquire, "multilock Lock", multi.Lock)
	add(acquire, "multilock TryLock", func(c context.Context) error { _, err := multi.TryLock(c); return err })
	add(query, "multilock IsLocked", func(c context.Context) error { _, err := multi.IsLocked(c); return err })
	add(query, "multilock ForceUnlock", func(c context.Context) error { _, err := multi.ForceUnlock(c); return err })
	add(release, "multilock Unlock", multiReleased.Unlock)

	name = lockName("redlock")
	redHeld, red := multilock.NewRedLock(lcs, name), multilock.NewRedLock(lcs, name)
	redistest.MustLock(t, redHeld)
	s.frees = append(s.frees, redHeld.Unlock)
	redReleased := multilock.NewRedLock(lcs, lockName("redlock-released"))
	redistest.MustLock(t, redReleased)
	add(acquire, "RedLock Lock", red.Lock)
	add(acquire, "RedLock TryLock", func(c context.Context) error { _, err := red.TryLock(c); return err })
	add(release, "RedLock Unlock", redReleased.Unlock)

	sem := semaphore.New(lc, lockName("semaphore"), 2)
	kept, err := sem.Acquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.frees = append(s.frees, kept.Release)
	permits, err := sem.Acquire(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.held["semaphore"] = func(c context.Context) (bool, error) {
		hs, err := sem.Holders(c)
		return len(hs) > 0 && hs[0].Token == kept.Token(), err
	}
	add(acquire, "semaphore Acquire", func(c context.Context) error { _, err := sem.Acquire(c, 1); return err })
	add(acquire, "semaphore TryAcquire", func(c context.Context) error { _, err := sem.TryAcquire(c, 1); return err })
	add(query, "semaphore Holders", func(c context.Context) error { _, err := sem.Holders(c); return err })
	add(query, "semaphore SetPermits", func(c context.Context) error { return sem.SetPermits(c, 3) })
	add(release, "semaphore Release", permits.Release)

	l := latch.New(lc, lockName("latch"), 2)
	s.count = l.Count
	add(acquire, "latch Await", l.Await)
	add(query, "latch CountDown", func(c context.Context) error { _, err := l.CountDown(c); return err })
	add(query, "latch Count", func(c context.Context) error { _, err := l.Count(c); return err })

	name = lockName("election")
	leader, err := election.New(lc, name).Campaign(ctx, "leader")
	if err != nil {
		t.Fatal(err)
	}
	s.frees = append(s.frees, leader.Resign)
	s.held["election"] = func(c context.Context) (bool, error) {
		ld, err := election.New(lc, name).Leader(c)
		return ld.Term != 0, err
	}
	resigning, err := election.New(lc, lockName("election-resigned")).Campaign(ctx, "resigning")
	if err != nil {
		t.Fatal(err)
	}
	candidate := election.New(lc, name)
	add(acquire, "election Campaign", func(c context.Context) error { _, err := candidate.Campaign(c, "candidate"); return err })
	add(acquire, "election Observe", func(c context.Context) error { _, err := candidate.Observe(c); return err })
	add(query, "election Leader", func(c context.Context) error { _, err := candidate.Leader(c); return err })
	add(query, "election ForceUnlock", func(c context.Context) error { _, err := candidate.ForceUnlock(c); return err })
	add(release, "election Resign", resigning.Resign)

	return s
}

// cohortMutex is reentrant.New in cohort mode: a Mutex that answers some
// calls from memory, and must still honour their ctx.
func cohortMutex(c *lockkit.Client, name string, opts ...lockkit.Option) *reentrant.Mutex {
	return reentrant.New(c, name, append(opts, reentrant.WithLocalHandoff(8, time.Second))...)
}

// free releases the holds the set-up took that no call releases. A hold
// found lost counts as released: a ForceUnlock that its caller gave up on
// may have freed it when it arrived late.
func (s *callSet) free(t *testing.T) {
	t.Helper()
	for _, free := range s.frees {
		if err := free(redistest.Ctx(t, redistest.Hang)); err != nil && !errors.Is(err, lockkit.ErrLost) {
			t.Errorf("releasing a hold of the set-up: %v", err)
		}
	}
}

// wantClean waits until rc's server keeps nothing of the set's names but
// what a freed lock keeps (see redistest.AssertClean): what calls left
// behind for the background to undo is undone by then. A latch that was
// counted down keeps its hash (its name is not checked), and a semaphore
// its number of permits once SetPermits ran (for 24 hours, as documented).
func (s *callSet) wantClean(t *testing.T, rc *redis.Client) {
	t.Helper()
	var left []string
	defer func() {
		if t.Failed() && len(left) > 0 {
			t.Logf("left in Redis: %s", strings.Join(left, ", "))
		}
	}()
	redistest.Eventually(t, redistest.Hang, "nothing to be left of the calls", func() bool {
		left = s.left(t, rc)
		return len(left) == 0
	})
}

// left returns the keys of the set's names on rc's server that a freed
// lock does not keep.
func (s *callSet) left(t *testing.T, rc *redis.Client) []string {
	t.Helper()
	var left []string
	for _, name := range s.names {
		if strings.HasSuffix(name, "-latch") {
			continue
		}
		keys, err := rc.Keys(redistest.Ctx(t, redistest.Hang), "*{"+name+"}*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if !strings.HasSuffix(k, ":fence") && !strings.Contains(k, "}:released:") && !strings.HasSuffix(k, "-semaphore}:permits") {
				left = append(left, k)
			}
		}
	}
	return left
}
