package lockkit_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// aclPrefix is the prefix of the least-privileged user's locks.
const aclPrefix = "billing"

// setUser runs ACL SETUSER name on every server of srvs with rules.
func setUser(t *testing.T, srvs []*redistest.Server, name string, rules ...string) {
	t.Helper()
	args := []any{"ACL", "SETUSER", name, "reset", "on", ">pw"}
	for _, r := range rules {
		args = append(args, r)
	}
	for _, s := range srvs {
		if err := s.Client(t).Do(redistest.Ctx(t, redistest.Hang), args...).Err(); err != nil {
			t.Fatalf("ACL SETUSER on %s: %v", s.Addr(), err)
		}
	}
}

// aclRules are the rules the README gives a least-privileged user of
// lockkit with the prefix aclPrefix.
var aclRules = []string{"~" + aclPrefix + ":*", "&" + aclPrefix + ":*", "+@all", "-@dangerous"}

// TestACL_a_user_limited_to_the_prefix_and_without_dangerous_commands_runs_every_kind
// runs every kind, on a standalone server and on a Cluster, through
// Clients with the prefix "billing" of a user whose keys and channels are
// limited to "billing:*" and who may run no @dangerous command, as the
// README says is enough: every key and channel lockkit touches lies under
// the prefix, and no command it sends is a dangerous one (the servers'
// ACL LOG records no denial, of a fallback lockkit took quietly either).
func TestACL_a_user_limited_to_the_prefix_and_without_dangerous_commands_runs_every_kind(t *testing.T) {
	t.Run("standalone", func(t *testing.T) {
		srv := redistest.StartServer(t)
		setUser(t, []*redistest.Server{srv}, "locks", aclRules...)
		t.Cleanup(func() { noDenials(t, []*redistest.Server{srv}) })
		runKinds(t, func(t *testing.T) redis.UniversalClient {
			return userClient(t, redis.NewClient(&redis.Options{Addr: srv.Addr(), Username: "locks", Password: "pw"}))
		}, lockkit.WithPrefix(aclPrefix))
	})
	t.Run("cluster", func(t *testing.T) {
		cl := redistest.StartCluster(t)
		setUser(t, cl.Servers(), "locks", aclRules...)
		t.Cleanup(func() { noDenials(t, cl.Servers()) })
		var addrs []string
		for _, s := range cl.Servers() {
			addrs = append(addrs, s.Addr())
		}
		runKinds(t, func(t *testing.T) redis.UniversalClient {
			return userClient(t, redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, Username: "locks", Password: "pw"}))
		}, lockkit.WithPrefix(aclPrefix))
	})
}

// TestACL_WithReplicaAck_needs_INFO_beside_the_least_privileges checks the
// README's one exception: WithReplicaAck asks the master about its
// replicas with INFO, a @dangerous command, so without +info its Lock
// fails with NOPERM (and takes nothing), and with it the Lock succeeds.
func TestACL_WithReplicaAck_needs_INFO_beside_the_least_privileges(t *testing.T) {
	srv := redistest.StartServer(t)
	setUser(t, []*redistest.Server{srv}, "locks", aclRules...)
	setUser(t, []*redistest.Server{srv}, "acks", append(aclRules, "+info")...)
	ctx := redistest.Ctx(t, redistest.Hang)
	name := redistest.Unique(t)
	for _, user := range []string{"locks", "acks"} {
		rc := userClient(t, redis.NewClient(&redis.Options{Addr: srv.Addr(), Username: user, Password: "pw"}))
		lc := redistest.Lockkit(t, rc, lockkit.WithPrefix(aclPrefix), lockkit.WithReplicaAck(1, 50*time.Millisecond))
		m := reentrant.New(lc, name)
		err := m.Lock(ctx)
		if user == "locks" {
			if !isNoPerm(err) {
				t.Fatalf("%s: Lock = %v; want NOPERM for INFO", user, err)
			}
			redistest.AssertClean(t, srv.Client(t), name)
			continue
		}
		if err != nil {
			t.Fatalf("%s: Lock = %v", user, err)
		}
		redistest.MustUnlock(t, m)
	}
}

// noDenials checks that the ACL LOG of every server of srvs is empty: no
// command, key or channel was refused to anyone.
func noDenials(t *testing.T, srvs []*redistest.Server) {
	t.Helper()
	for _, s := range srvs {
		log, err := s.Client(t).Do(redistest.Ctx(t, redistest.Hang), "ACL", "LOG").Slice()
		if err != nil {
			t.Fatalf("ACL LOG on %s: %v", s.Addr(), err)
		}
		if len(log) > 0 {
			t.Errorf("ACL LOG on %s: %v; want no denial", s.Addr(), log)
		}
	}
}

// isNoPerm reports whether err, or an error it wraps, is a NOPERM reply.
func isNoPerm(err error) bool {
	var rerr redis.Error
	return errors.As(err, &rerr) && redis.HasErrorPrefix(rerr, "NOPERM")
}

// userClient pings rc, a client of an ACL user, failing the test if the
// user cannot log in, and closes it in t.Cleanup.
func userClient[C redis.UniversalClient](t *testing.T, rc C) C {
	t.Helper()
	t.Cleanup(func() { _ = rc.Close() })
	if err := rc.Ping(redistest.Ctx(t, redistest.Hang)).Err(); err != nil {
		t.Fatalf("logging in: %v", err)
	}
	return rc
}
