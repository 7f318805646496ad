package faultkit

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// Env is the set-up of one kind's test: its servers, a go-redis client of
// each for the administration and the checks, two sides that lock (two
// processes, as far as the locks can tell), and a lock name.
type Env struct {
	K       Kind
	Servers []*redistest.Server
	Admins  []*redis.Client
	A, B    Side
	Name    string
	// Prefix is the prefix of the sides' keys; "" for the default.
	Prefix string
	// Lease is the watchdog timeout of the sides' Clients.
	Lease time.Duration
	// Proxied is set when each side dials the servers through proxies of
	// its own, so that its network can be cut alone.
	Proxied bool
}

// NewEnv returns the env of kind k on servers, started already, as many
// as k spans, with a fresh lock name and the watchdog timeout lease.
func NewEnv(t *testing.T, k Kind, lease time.Duration, servers []*redistest.Server) *Env {
	t.Helper()
	e := &Env{K: k, Servers: servers, Name: redistest.Unique(t), Lease: lease}
	e.Connect(t)
	return e
}

// Connect makes e's clients of its servers: the admin clients and the
// two sides.
func (e *Env) Connect(t *testing.T) {
	t.Helper()
	for _, s := range e.Servers {
		e.Admins = append(e.Admins, s.Client(t))
	}
	e.A, e.B = e.NewSide(t), e.NewSide(t)
}

// NewSide returns a side of e: fresh Clients of its servers, with e's
// prefix and watchdog timeout, through proxies of their own if e is
// Proxied.
func (e *Env) NewSide(t *testing.T) Side {
	t.Helper()
	s := Counted()
	for _, srv := range e.Servers {
		var rc *redis.Client
		if e.Proxied {
			p := redistest.StartProxy(t, srv.Addr())
			s.Proxies = append(s.Proxies, p)
			rc = p.Client(t)
		} else {
			rc = srv.Client(t)
		}
		s.RCs = append(s.RCs, rc)
		s.Nodes = append(s.Nodes, redistest.Lockkit(t, rc, s.Options(e.Prefix, e.Lease)...))
	}
	return s
}

// Owner returns the i-th owner of e's lock on side s.
func (e *Env) Owner(s Side, i int) Owner { return e.K.Owner(s.Nodes, e.Name, i) }

// Admin runs a command on every server of e, failing the test on an error.
func (e *Env) Admin(t *testing.T, args ...any) {
	t.Helper()
	for _, c := range e.Admins {
		if err := c.Do(redistest.Ctx(t, CallBound), args...).Err(); err != nil {
			t.Fatalf("%v on %s: %v", args, c.Options().Addr, err)
		}
	}
}

// Clean checks that nothing is left of lock n on e's servers (see
// redistest.AssertClean) but its fencing counter and released tokens.
func (e *Env) Clean(t *testing.T, n string) {
	t.Helper()
	for _, c := range e.Admins {
		for _, name := range e.K.Names(n) {
			redistest.AssertCleanWithin(t, c, name, time.Second)
		}
	}
}
