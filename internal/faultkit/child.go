package faultkit

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// Children are the child processes of the tests whose kinds are ks, for
// redistest.Main: "waiter" (see WaiterChild) and "owner" (see
// OwnerChild). A child takes its kind from ks by name, so that its locks
// are set as those of the test's process.
func Children(ks []Kind) redistest.Children {
	return redistest.Children{
		"waiter": func(args []string) { waiterChild(ks, args) },
		"owner":  func(args []string) { ownerChild(ks, args) },
	}
}

// startChild starts the child process called role with the i-th owner of
// e's lock. Its arguments: e's kind, watchdog timeout and lock name, the
// servers' addresses separated by commas, and i.
func (e *Env) startChild(t *testing.T, role string, i int) *redistest.Child {
	t.Helper()
	addrs := make([]string, len(e.Servers))
	for j, s := range e.Servers {
		addrs[j] = s.Addr()
	}
	return redistest.StartChild(t, role, e.K.Name, e.Lease.String(), e.Name, strings.Join(addrs, ","), strconv.Itoa(i))
}

// childOwner is the owner of the child process called role, from the
// arguments startChild gave it: it makes a Client of each server with
// the watchdog timeout and tr, and returns the owner and what closes the
// Clients.
func childOwner(ks []Kind, role string, args []string, tr *lockkit.Trace) (Owner, func()) {
	if len(args) != 5 {
		redistest.ChildFatalf("%s: want kind, lease, name, servers and index; got %q", role, args)
	}
	k, ok := kindNamed(ks, args[0])
	if !ok {
		redistest.ChildFatalf("%s: no kind %q", role, args[0])
	}
	d, err := time.ParseDuration(args[1])
	if err != nil {
		redistest.ChildFatalf("%s: %v", role, err)
	}
	var nodes []*lockkit.Client
	var closers []func()
	for _, addr := range strings.Split(args[3], ",") {
		rc := redis.NewClient(&redis.Options{Addr: addr})
		c := lockkit.New(rc, lockkit.WithWatchdogTimeout(d), lockkit.WithTrace(tr))
		closers = append(closers, func() {
			_ = c.Close()
			_ = rc.Close()
		})
		nodes = append(nodes, c)
	}
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	return k.Owner(nodes, args[2], redistest.ChildAtoi(args[4], "index")), closeAll
}
