package faultkit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// ownerChild is a process with one owner of a lock, which obeys its
// stdin:
//
//   - "lock": Lock, printing "waiting" if it waits, then "locked" and the
//     hold's tokens separated by spaces once it holds the lock, and later
//     "lost" and the cause (lockkit.Trace.Lost) once the hold is lost;
//   - "unlock": Unlock, printing "unlock nil", "unlock ErrLost" or
//     "unlock " and the error;
//   - "renewals": print "renewals" and how many renewals of a lease its
//     watchdog has made so far.
//
// Its arguments are startChild's.
func ownerChild(ks []Kind, args []string) {
	var renewals atomic.Int64
	tr := &lockkit.Trace{
		WaitStart: func(lockkit.WaitStartInfo) { redistest.ChildPrintf("waiting") },
		Renewed:   func(r lockkit.RenewInfo) { renewals.Add(int64(r.Renewed)) },
		Lost:      func(l lockkit.LostInfo) { redistest.ChildPrintf("lost %v", l.Err) },
	}
	o, closeAll := childOwner(ks, "owner", args, tr)
	defer closeAll()
	ctx, cancel := context.WithTimeout(context.Background(), redistest.Hang)
	defer cancel()
	for line := range redistest.ChildLines() {
		switch line {
		case "lock":
			if err := o.Lock(ctx); err != nil {
				redistest.ChildFatalf("owner: Lock: %v", err)
			}
			redistest.ChildPrintf("locked %s", strings.Trim(fmt.Sprint(o.Tokens()), "[]"))
		case "unlock":
			switch err := o.Unlock(ctx); {
			case err == nil:
				redistest.ChildPrintf("unlock nil")
			case errors.Is(err, lockkit.ErrLost):
				redistest.ChildPrintf("unlock ErrLost")
			default:
				redistest.ChildPrintf("unlock %v", err)
			}
		case "renewals":
			redistest.ChildPrintf("renewals %d", renewals.Load())
		default:
			redistest.ChildFatalf("owner: unknown command %q", line)
		}
	}
}

// StartOwner starts an owner child process (see Children) with the i-th
// owner of e's lock, which does what ChildLock, ChildUnlock and
// ChildRenewals tell it, and ends at EndChild.
func (e *Env) StartOwner(t *testing.T, i int) *redistest.Child {
	t.Helper()
	return e.startChild(t, "owner", i)
}

// ChildLock makes the owner child c take the lock, which must be free,
// and returns its hold's tokens.
func ChildLock(t *testing.T, c *redistest.Child) []int64 {
	t.Helper()
	c.Send(t, "lock")
	var tokens []int64
	for _, f := range strings.Fields(strings.TrimPrefix(c.WaitLine(t, "locked", CallBound), "locked")) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("child's token %q: %v", f, err)
		}
		tokens = append(tokens, n)
	}
	return tokens
}

// ChildUnlock makes the owner child c unlock and checks that its Unlock
// returned want ("nil", "ErrLost").
func ChildUnlock(t *testing.T, c *redistest.Child, want string) {
	t.Helper()
	c.Send(t, "unlock")
	if got := c.WaitLine(t, "unlock ", CallBound); got != "unlock "+want {
		t.Errorf("the owner child's Unlock: got %q, want %q", got, "unlock "+want)
	}
}

// ChildRenewals returns how many renewals of a lease the owner child c's
// watchdog has made.
func ChildRenewals(t *testing.T, c *redistest.Child) int64 {
	t.Helper()
	c.Send(t, "renewals")
	return c.WaitInt(t, "renewals ", CallBound)
}

// EndChild closes the stdin of the owner child c and waits for it to
// exit cleanly.
func EndChild(t *testing.T, c *redistest.Child) {
	t.Helper()
	c.CloseStdin(t)
	c.Wait(t, CallBound)
}
