package pausefault_test

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
)

func TestMain(m *testing.M) { redistest.Main(m, redistest.Children{"owner": ownerChild}) }

// ownerChild is a process with one owner of a lock, the stopped process of
// the tests. Its arguments: the kind, the watchdog timeout, the lock's
// name, the servers' addresses separated by commas, and the owner's
// index. It makes a Client of each server and obeys its stdin:
//
//   - "lock": Lock, printing "waiting" if it waits, then "locked" and the
//     hold's tokens separated by spaces once it holds the lock, and later
//     "lost" and the cause (lockkit.Trace.Lost) once the hold is lost;
//   - "unlock": Unlock, printing "unlock nil", "unlock ErrLost" or
//     "unlock " and the error;
//   - "renewals": print "renewals" and how many renewals of a lease its
//     watchdog has made so far.
func ownerChild(args []string) {
	if len(args) != 5 {
		redistest.ChildFatalf("owner: want kind, lease, name, servers and index; got %q", args)
	}
	k, ok := kindNamed(args[0])
	if !ok {
		redistest.ChildFatalf("owner: no kind %q", args[0])
	}
	d, err := time.ParseDuration(args[1])
	if err != nil {
		redistest.ChildFatalf("owner: %v", err)
	}
	var renewals atomic.Int64
	tr := &lockkit.Trace{
		WaitStart: func(lockkit.WaitStartInfo) { redistest.ChildPrintf("waiting") },
		Renewed:   func(r lockkit.RenewInfo) { renewals.Add(int64(r.Renewed)) },
		Lost:      func(l lockkit.LostInfo) { redistest.ChildPrintf("lost %v", l.Err) },
	}
	var nodes []*lockkit.Client
	for _, addr := range strings.Split(args[3], ",") {
		rc := redis.NewClient(&redis.Options{Addr: addr})
		c := lockkit.New(rc, lockkit.WithWatchdogTimeout(d), lockkit.WithTrace(tr))
		defer func() {
			_ = c.Close()
			_ = rc.Close()
		}()
		nodes = append(nodes, c)
	}
	o := k.owner(nodes, args[2], redistest.ChildAtoi(args[4], "index"))
	ctx, cancel := context.WithTimeout(context.Background(), redistest.Hang)
	defer cancel()
	for line := range redistest.ChildLines() {
		switch line {
		case "lock":
			if err := o.Lock(ctx); err != nil {
				redistest.ChildFatalf("owner: Lock: %v", err)
			}
			redistest.ChildPrintf("locked %s", strings.Trim(fmt.Sprint(o.tokens()), "[]"))
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
