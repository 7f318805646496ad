package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
)

// unlockFlags are unlock's own flags.
type unlockFlags struct{ force, yes bool }

// unlockCommand is unlock --force: the only command that writes.
func unlockCommand() *command {
	f := &unlockFlags{}
	return onLock("unlock --force --yes NAME", "free lock NAME whoever holds it and wake its waiters",
		func(fs *flag.FlagSet) {
			fs.BoolVar(&f.force, "force", false, "free the lock whoever holds it (required)")
			fs.BoolVar(&f.yes, "yes", false, "confirm; without it nothing changes")
		},
		func(ctx context.Context, e *env, name string) error { return unlock(ctx, e, name, f) })
}

// UnlockResult is what unlock prints with -o json.
type UnlockResult struct {
	Name string `json:"name"`
	// Kind is the lock's kind when it was read; empty when it was free.
	Kind string `json:"kind"`
	// Holders are the holds found before anything was done.
	Holders []Holder `json:"holders"`
	// Confirmed reports --yes; without it nothing was changed.
	Confirmed bool `json:"confirmed"`
	// Freed reports that holds were removed and the waiters woken.
	Freed bool `json:"freed"`
}

// forceUnlocker is the library's ForceUnlock of one kind.
type forceUnlocker interface {
	ForceUnlock(ctx context.Context) (bool, error)
}

// unlock frees lock name as its kind's own ForceUnlock does: it reads the
// hash's ':kind' and calls ForceUnlock of a lock of that kind made with
// the library, which removes every hold and wakes the waiters as that kind
// does (every waiter of a reentrant or read-write lock, the first in line
// of a fair lock). An election is freed by election.Election.ForceUnlock:
// every candidate woken, and its observers told as Resign tells them. A
// latch is refused (see
// refuseLatch). If the name changed kind meanwhile, the library's script
// refuses and nothing changes. Without --yes it changes nothing and says
// what it would do.
func unlock(ctx context.Context, e *env, name string, f *unlockFlags) error {
	if !f.force {
		return usageError{"unlock needs --force: it frees the lock whoever holds it"}
	}
	ctx, cancel := e.bounded(ctx)
	defer cancel()
	l, err := e.inspect(ctx, name)
	if err != nil {
		return err
	}
	res := UnlockResult{Name: name, Kind: l.Kind, Holders: l.Holders, Confirmed: f.yes}
	switch {
	case l.Kind == "" && l.TTLMS != -2:
		// A hash no kind of this version wrote: no ForceUnlock knows
		// how to free it and wake its waiters.
		return fmt.Errorf("%s has no ':kind' in its hash, which every lock kind writes (%s); not touching it", shown(name), describeHolds(l))
	case l.Kind == "":
		return e.unlocked(res, fmt.Sprintf("%s is not held; nothing to do", shown(name)))
	}

	c := lockkit.New(e.rc, lockkit.WithPrefix(e.opts.prefix))
	defer c.Close()
	var m forceUnlocker
	switch l.Kind {
	case kindReentrant:
		m = reentrant.New(c, name)
	case kindElection:
		m = election.New(c, name)
	case kindSpin:
		m = spin.New(c, name)
	case kindFair:
		m = fair.New(c, name)
	case kindRW:
		m = rwlock.New(c, name)
	case kindLatch:
		return refuseLatch(name, l)
	case kindSemaphore:
		return refuseSemaphore(name, l)
	case kindRedLock:
		return fmt.Errorf("%s is one node's part of a RedLock: freeing one node does not free the RedLock, and lockkit has no force unlock for it", shown(name))
	default:
		return fmt.Errorf("%s is a lock of unknown kind %q; not touching it", shown(name), l.Kind)
	}

	what := describeHolds(l)
	if !f.yes {
		if e.opts.json() {
			if err := writeJSON(e.stdout, res); err != nil {
				return err
			}
		}
		fmt.Fprintf(e.stderr, "lockkit unlock: refusing without --yes; nothing changed. It would free the %s lock %s (%s) and wake its waiters.\n",
			l.Kind, shown(name), what)
		return errRefused
	}
	freed, err := m.ForceUnlock(ctx)
	if errors.Is(err, lockkit.ErrWrongKind) {
		return fmt.Errorf("%s changed kind since it was read; nothing changed: %w", shown(name), err)
	}
	if err != nil {
		return err
	}
	res.Freed = freed
	if !freed {
		return e.unlocked(res, fmt.Sprintf("%s was released meanwhile; nothing to do", shown(name)))
	}
	return e.unlocked(res, fmt.Sprintf("freed the %s lock %s (%s) and woke its waiters", l.Kind, shown(name), what))
}

// unlocked prints the outcome of unlock: res with -o json, else msg.
func (e *env) unlocked(res UnlockResult, msg string) error {
	if e.opts.json() {
		return writeJSON(e.stdout, res)
	}
	_, err := fmt.Fprintln(e.stdout, msg)
	return err
}

// describeHolds lists l's holds for a message: "held by OWNER(COUNT)
// token T, ...".
func describeHolds(l *Lock) string {
	if len(l.Holders) == 0 {
		return "no live hold"
	}
	var parts []string
	for _, h := range l.Holders {
		parts = append(parts, fmt.Sprintf("%s token %d", holdLabel(h), h.Token))
	}
	return "held by " + strings.Join(parts, ", ")
}

// refuseSemaphore refuses to unlock semaphore name: its permits are
// freed by their holders' Release, or by themselves when a holder that
// died stops renewing its lease, and package semaphore has no force
// unlock whose wake-ups this command could reuse. A waiter held up by a
// holder that is alive but stuck can be let through by raising the
// number of permits (semaphore.Semaphore.SetPermits).
func refuseSemaphore(name string, l *Lock) error {
	held := "no permit held"
	if sem := l.Semaphore; sem != nil && sem.Used > 0 {
		held = fmt.Sprintf("%d permits held by %d holds", sem.Used, len(l.Holders))
	}
	return fmt.Errorf("%s is a semaphore (%s): lockkit does not force its permits free; each is freed by its holder's Release,"+
		" or at the end of its lease when the holder died; to let waiters through past a stuck holder, raise the number of"+
		" permits with semaphore.Semaphore.SetPermits", shown(name), held)
}

// refuseLatch refuses to unlock latch name: a latch is not a lock. It has
// no holder to free, and what could be done instead changes what its
// users count on: opening it would let every Await return without the
// count-downs they wait for, and deleting it would start it afresh, its
// waiters waiting for a full count again.
func refuseLatch(name string, l *Lock) error {
	state := "open"
	if l.Latch != nil && !l.Latch.Open {
		state = fmt.Sprintf("closed, %d count-downs left", l.Latch.Count)
	}
	return fmt.Errorf("%s is a countdown latch (%s, %s), not a lock: it has no holder to free, and lockkit does not open a latch"+
		" without its count-downs; count it down with latch.Latch.CountDown, or let it expire", shown(name), state, expiry(l.TTLMS))
}
