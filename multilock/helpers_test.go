package multilock_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// lockKey is the Redis key of lock name under the default prefix.
func lockKey(name string) string { return "lockkit:{" + name + "}" }

// lockkits returns a lockkit Client of each of clients, closed in
// t.Cleanup.
func lockkits(t testing.TB, clients []redis.UniversalClient) []*lockkit.Client {
	t.Helper()
	lcs := make([]*lockkit.Client, len(clients))
	for i, c := range clients {
		lcs[i] = redistest.Lockkit(t, c)
	}
	return lcs
}

// errRefused is what a lockCall of TryLock returns when the lock was busy.
var errRefused = errors.New("refused: the lock is busy")

// lockCall is a way of taking a lock, as a call that fails unless it was
// taken.
type lockCall struct {
	what string
	call func(context.Context) error
}

// lockCalls returns l's Lock and TryLock as lockCalls, for the tests that
// check both alike.
func lockCalls(l lockkit.Locker) []lockCall {
	return []lockCall{
		{"Lock", l.Lock},
		{"TryLock", func(ctx context.Context) error {
			ok, err := l.TryLock(ctx)
			if !ok && err == nil {
				return errRefused
			}
			return err
		}},
	}
}

// givenBack waits until lock name is free on c, and then checks that it
// left nothing behind. A Lock whose ctx ended while its take of a member
// was on its way returns at once; the member's holder undoes that take
// when its reply comes.
func givenBack(t *testing.T, c redis.UniversalClient, name string) {
	t.Helper()
	waitFreeOn(t, c, name, name+" to be given back")
	redistest.AssertClean(t, c, name)
}

// waitFreeOn waits, saying what for, until lock name is free on c.
func waitFreeOn(t *testing.T, c redis.UniversalClient, name, what string) {
	t.Helper()
	redistest.Eventually(t, redistest.Hang, what, func() bool {
		n, err := c.Exists(context.Background(), lockKey(name)).Result()
		return err == nil && n == 0
	})
}

// releaseSilence returns a Silence that, once on, holds up the release
// scripts of the clients it is added to.
func releaseSilence() *redistest.Silence {
	return &redistest.Silence{Match: func(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "release") }, Max: 2 * redistest.Hang}
}

// silentReleases starts a server and returns a go-redis client of it,
// and two Clients of it: c, and cS, whose release scripts silent holds up
// once on (the caller turns it off).
func silentReleases(t *testing.T) (rc *redis.Client, c, cS *lockkit.Client, silent *redistest.Silence) {
	s := redistest.StartServer(t)
	rc, rcS := s.Client(t), s.Client(t)
	silent = releaseSilence()
	rcS.AddHook(silent)
	return rc, redistest.Lockkit(t, rc), redistest.Lockkit(t, rcS), silent
}

// giveBackScene is the set-up of the tests of a give-back the server does
// not answer: a server reached by rc, c and cS, the release scripts of cS
// held up by silent once on; three members a, b and c, reentrant.Mutexes
// on cS; and the name of a lock d to keep busy.
type giveBackScene struct {
	rc      *redis.Client
	c, cS   *lockkit.Client
	silent  *redistest.Silence
	names   []string           // of a, b and c
	members []*reentrant.Mutex // a, b and c
	busy    string             // d's name
}

// newGiveBackScene sets up a giveBackScene, silent not on yet (the caller
// defers turning it off).
func newGiveBackScene(t *testing.T) giveBackScene {
	t.Helper()
	var g giveBackScene
	g.rc, g.c, g.cS, g.silent = silentReleases(t)
	u := redistest.Unique(t)
	g.names = []string{"a-" + u, "b-" + u, "c-" + u}
	g.busy = "d-" + u
	for _, n := range g.names {
		g.members = append(g.members, reentrant.New(g.cS, n))
	}
	return g
}

// after returns the members of a Mutex that takes first, then a, b and c.
func (g giveBackScene) after(first lockkit.Locker) []lockkit.Locker {
	locks := []lockkit.Locker{first}
	for _, mb := range g.members {
		locks = append(locks, mb)
	}
	return locks
}

// settle turns silent off, settles the releases in doubt of a, b and c by
// their own Unlock, and checks that each is clean.
func (g giveBackScene) settle(t *testing.T) {
	t.Helper()
	g.silent.Off()
	for _, mb := range g.members {
		redistest.MustUnlock(t, mb) // settles the release in doubt
	}
	for _, n := range g.names {
		redistest.AssertClean(t, g.rc, n)
	}
}

// wantMayStillBeHeld checks that err, the error of what (a Lock or a
// TryLock whose give-back got no reply), names each of names as a member
// that may still be held.
func wantMayStillBeHeld(t *testing.T, what string, err error, names []string) {
	t.Helper()
	for _, n := range names {
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q may still be held", n)) {
			t.Errorf("%s whose give-back got no reply = %v; want an error naming %s", what, err, n)
		}
	}
}

// droppedReleases starts a server and returns a go-redis client of it,
// and two Clients of it: c, and cD, the replies to whose release scripts
// drop loses once armed.
func droppedReleases(t *testing.T) (rc *redis.Client, c, cD *lockkit.Client, drop *redistest.DropReply) {
	t.Helper()
	s := redistest.StartServer(t)
	rc, rcD := s.Client(t), s.Client(t)
	drop = &redistest.DropReply{Match: func(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "release") }}
	rcD.AddHook(drop)
	return rc, redistest.Lockkit(t, rc), redistest.Lockkit(t, rcD), drop
}

// lockedPair returns two fresh lock names a and b and a Mutex, locked, of
// a reentrant.Mutex of a on c and one of b on cB.
func lockedPair(t *testing.T, c, cB *lockkit.Client) (a, b string, m *multilock.Mutex) {
	t.Helper()
	a, b = "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
	m = multilock.New([]lockkit.Locker{reentrant.New(c, a), reentrant.New(cB, b)})
	redistest.MustLock(t, m)
	return a, b, m
}

// unlockInDoubt arms drop and unlocks m, a lockedPair whose b is on drop's
// Client, and fails the test unless that Unlock fails with b's error
// alone (neither ErrNotHeld nor ErrLost).
func unlockInDoubt(ctx context.Context, t *testing.T, m *multilock.Mutex, drop *redistest.DropReply) {
	t.Helper()
	drop.Arm()
	err := m.Unlock(ctx)
	if err == nil || errors.Is(err, lockkit.ErrNotHeld) || errors.Is(err, lockkit.ErrLost) {
		t.Fatalf("Unlock whose reply from b was lost = %v; want b's error alone", err)
	}
}

// silentNodes starts three masters and returns a client of each and a
// Silence that, once on, holds up the release scripts of every one of
// them (the caller turns it off).
func silentNodes(t *testing.T) ([]redis.UniversalClient, *redistest.Silence) {
	t.Helper()
	_, clients := masters(t, 3)
	silent := releaseSilence()
	for _, c := range clients {
		c.(*redis.Client).AddHook(silent)
	}
	return clients, silent
}

// heldOnSilentNodes starts three nodes as silentNodes does and locks a
// RedLock r of a fresh name on them, with a node timeout of 100 ms. It
// returns a client and a lockkit Client of each node, the name, r and the
// Silence (the caller turns it off).
func heldOnSilentNodes(t *testing.T) (clients []redis.UniversalClient, lcs []*lockkit.Client, name string, r *multilock.RedLock, silent *redistest.Silence) {
	t.Helper()
	clients, silent = silentNodes(t)
	lcs = lockkits(t, clients)
	name = redistest.Unique(t)
	r = multilock.NewRedLock(lcs, name, multilock.WithNodeTimeout(100*time.Millisecond))
	redistest.MustLock(t, r)
	return clients, lcs, name, r, silent
}

// unlockUnanswered turns silent on, so that no node answers r's releases,
// and unlocks r: it fails the test unless that Unlock fails with the
// nodes' errors (neither ErrLost nor ErrNotHeld), its outcome unknown.
func unlockUnanswered(t *testing.T, r *multilock.RedLock, silent *redistest.Silence) {
	t.Helper()
	silent.On()
	err := r.Unlock(redistest.Ctx(t, redistest.Hang))
	if err == nil || errors.Is(err, lockkit.ErrLost) || errors.Is(err, lockkit.ErrNotHeld) {
		t.Fatalf("Unlock that no node answers = %v; want the nodes' errors", err)
	}
}

// raisesHeldUp starts three masters and sets node 0's fencing counter of
// a fresh lock name ahead (see counterAhead), so that nodes 1 and 2 must
// have theirs raised to a hold's token. It returns a client of each node,
// the name, the counter's key and node 0's value of it, and a Silence
// that, once on, holds up the raise scripts of nodes 1 and 2 (the caller
// turns it off). The raise script is loaded on every node already, so
// that a raise is one command: one that found it missing would send it
// again, and the second command could be held up after the first was let
// go.
func raisesHeldUp(t *testing.T) (clients []redis.UniversalClient, name, fence string, ahead int64, silent *redistest.Silence) {
	t.Helper()
	_, clients = masters(t, 3)
	warm := redistest.Unique(t) + "-warm"
	counterAhead(t, clients[0], lockKey(warm)+":fence")
	openConnections(t, multilock.NewRedLock(lockkits(t, clients), warm)) // raises nodes 1 and 2
	name = redistest.Unique(t)
	fence = lockKey(name) + ":fence"
	ahead = counterAhead(t, clients[0], fence)
	silent = &redistest.Silence{Match: func(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "raise") }, Max: 2 * redistest.Hang}
	for _, c := range clients[1:] {
		c.(*redis.Client).AddHook(silent)
	}
	return clients, name, fence, ahead, silent
}

// openConnections locks and unlocks l, so that the connections it uses
// are open before a test cuts them.
func openConnections(t *testing.T, l lockkit.Locker) {
	t.Helper()
	redistest.MustLock(t, l)
	redistest.MustUnlock(t, l)
}

// keepsTrying checks that a Lock, whose result comes on done, keeps trying
// while down (what is down, for messages): it waits until counter has
// seen rounds scripts and fails the test if the Lock has returned.
func keepsTrying(t *testing.T, done <-chan error, counter *redistest.Counter, rounds int64, down string) {
	t.Helper()
	redistest.Eventually(t, redistest.Hang, "rounds of the Lock while "+down, func() bool { return counter.Scripts() >= rounds })
	redistest.NotYet(t, done, "Lock returned while "+down)
}

// threeNodes starts three masters and returns a client of each, a lockkit
// Client of each and a fresh lock name.
func threeNodes(t *testing.T) ([]redis.UniversalClient, []*lockkit.Client, string) {
	t.Helper()
	_, clients := masters(t, 3)
	return clients, lockkits(t, clients), redistest.Unique(t)
}

// offAndOn runs test as two subtests: one named off, with false, and one
// named on, with true.
func offAndOn(t *testing.T, off, on string, test func(t *testing.T, on bool)) {
	t.Helper()
	t.Run(off, func(t *testing.T) { test(t, false) })
	t.Run(on, func(t *testing.T) { test(t, true) })
}

// runsRelease selects the commands that run the release script.
func runsRelease(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "release") }

// hookEach adds to each of clients a hook that newHook makes for it, and
// returns the hooks in the order of clients.
func hookEach[H redis.Hook](clients []redis.UniversalClient, newHook func() H) []H {
	hooks := make([]H, len(clients))
	for i, c := range clients {
		hooks[i] = newHook()
		c.(*redis.Client).AddHook(hooks[i])
	}
	return hooks
}

// redLockUnlockInDoubt arms hooks, which keep r's Unlock from learning
// what some nodes' releases did, and calls that Unlock: its outcome
// unknown, it must fail with the nodes' errors, neither ErrLost nor
// ErrNotHeld. what names the Unlock in the failure.
func redLockUnlockInDoubt[H interface{ Arm() }](ctx context.Context, t *testing.T, r *multilock.RedLock, hooks []H, what string) {
	t.Helper()
	for _, h := range hooks {
		h.Arm()
	}
	if err := r.Unlock(ctx); err == nil || errors.Is(err, lockkit.ErrLost) || errors.Is(err, lockkit.ErrNotHeld) {
		t.Fatalf("%s = %v; want the nodes' errors", what, err)
	}
}

// heldRelease is a scene for a give-back that gets no reply: a server
// reached by rc; member a, a reentrant.Mutex on a client of its own whose
// nth release (counted from the end of newHeldRelease) silent holds up
// once on; member b on another client, held by other. The scripts are
// loaded, so that each release is one EVALSHA.
type heldRelease struct {
	rc               *redis.Client
	silent           *redistest.Silence
	a, b             string // the names of a and b
	memberA, memberB *reentrant.Mutex
	other            *reentrant.Mutex
}

// newHeldRelease sets up a heldRelease whose silent holds up a's nth
// release, not on yet (the caller defers turning it off).
func newHeldRelease(t *testing.T, nth int64) heldRelease {
	t.Helper()
	s := redistest.StartServer(t)
	rc, rcA := s.Client(t), s.Client(t)
	var releases atomic.Int64
	silent := &redistest.Silence{Max: 2 * redistest.Hang, Match: func(cmd redis.Cmder) bool {
		return multilock.RunsScript(cmd, "release") && releases.Add(1) == nth
	}}
	rcA.AddHook(silent)
	c, cA := redistest.Lockkit(t, rc), redistest.Lockkit(t, rcA)
	g := heldRelease{rc: rc, silent: silent, a: "a-" + redistest.Unique(t), b: "b-" + redistest.Unique(t)}
	g.other = reentrant.New(c, g.b)
	redistest.MustLock(t, g.other)
	g.memberA, g.memberB = reentrant.New(cA, g.a), reentrant.New(c, g.b)
	redistest.MustLock(t, g.memberA) // loads the scripts
	redistest.MustUnlock(t, g.memberA)
	releases.Store(0)
	return g
}
