package soak_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// lease is the watchdog timeout of every hold, which renews it every
// lease/3. A hold taken just after a restart has its first renewal load
// the script again (NOSCRIPT, then EVAL) on a connection dialled anew,
// within a third of the lease: with 500 ms, a machine busy with other
// tests now and then missed that, and the hold was reported lost.
const lease = time.Second

// callBound bounds a call or a wait expected to end: reaching it means a
// hang.
const callBound = faultkit.CallBound

// env is the set-up of one kind's soak: its servers, a go-redis client of
// each for the administration, two sides that lock, each of whose Clients
// dials its server through a proxy of the side's own, so that the side's
// network can be cut alone, the prefix of their keys and a lock name.
type env struct {
	*faultkit.Env
	// tokens are the fencing tokens of the last hold of e's lock, part by
	// part (see fenced).
	tokens []int64
}

// newEnv starts the servers of kind k and the rest of its env.
func newEnv(t *testing.T, k faultkit.Kind) *env {
	t.Helper()
	e := &faultkit.Env{K: k, Servers: redistest.StartMasters(t, k.Servers), Prefix: redistest.Unique(t), Name: "soak", Lease: lease, Proxied: true}
	e.Connect(t)
	return &env{Env: e}
}

// clients returns the Clients of both sides of e.
func (e *env) clients() []*lockkit.Client {
	return append(append([]*lockkit.Client(nil), e.A.Nodes...), e.B.Nodes...)
}
