package lockkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestWithLogger_logs_a_lost_hold_at_Error: nothing is logged while all
// goes well; a hold whose key vanishes is logged at Error with the lock's
// kind, name, owner and token.
func TestWithLogger_logs_a_lost_hold_at_Error(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	var out redistest.Buffer
	lc := redistest.Lockkit(t, rc, lockkit.WithLogger(slog.New(slog.NewJSONHandler(&out, nil))))
	name := redistest.Unique(t)
	m := reentrant.New(lc, name, lockkit.WithWatchdogTimeout(300*time.Millisecond), lockkit.WithOwner("job-7"))
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
	redistest.MustLock(t, m)
	token := m.Token()
	if s := out.String(); s != "" {
		t.Fatalf("logged while all went well: %s", s)
	}
	if err := rc.Del(context.Background(), "lockkit:{"+name+"}").Err(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, m.Lost(), 10*time.Second, "the lost signal")
	redistest.Eventually(t, 10*time.Second, "the loss to be logged", func() bool { return out.String() != "" })
	var rec map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(out.String(), "\n", 2)[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["level"] != "ERROR" || rec["name"] != name || rec["owner"] != "job-7" || rec["kind"] != "reentrant" || rec["token"] != float64(token) {
		t.Fatalf("log record %v; want ERROR with the lock's kind, name, owner and token %d", rec, token)
	}
	redistest.WantErr(t, m.Unlock(context.Background()), lockkit.ErrLost)
}

func TestWithLogger_is_a_Client_option(t *testing.T) {
	_, rc := redistest.Mini(t)
	lc := redistest.Lockkit(t, rc)
	m := reentrant.New(lc, "x", lockkit.WithLogger(slog.Default()))
	redistest.WantErr(t, m.Lock(context.Background()), lockkit.ErrInvalid)
	if err := lockkit.New(rc, lockkit.WithLogger(nil)).Err(); err == nil {
		t.Fatal("New with a nil logger: no error")
	}
}

// TestWithLogger_warns_of_a_failed_renewal_and_a_broken_pubsub_connection:
// a renewal round trip that fails (the network to the server is cut) is
// logged at Warn, and so is a pub/sub connection that breaks (the server
// kills it).
func TestWithLogger_warns_of_a_failed_renewal_and_a_broken_pubsub_connection(t *testing.T) {
	srv := redistest.StartServer(t)
	p := redistest.StartProxy(t, srv.Addr())
	rc := redis.NewClient(&redis.Options{Addr: p.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = rc.Close() })
	var out redistest.Buffer
	lc := redistest.Lockkit(t, rc, lockkit.WithLogger(slog.New(slog.NewJSONHandler(&out, nil))))
	logged := func(level, msg string) func() bool {
		return func() bool {
			for line := range strings.SplitSeq(out.String(), "\n") {
				var rec map[string]any
				if json.Unmarshal([]byte(line), &rec) == nil && rec["level"] == level && strings.Contains(fmt.Sprint(rec["msg"]), msg) {
					return true
				}
			}
			return false
		}
	}

	// A waiter subscribes the Client; the server kills its connection.
	name := redistest.Unique(t)
	holder := reentrant.New(lc, name)
	redistest.MustLock(t, holder)
	got := redistest.LockAsync(redistest.Ctx(t, 30*time.Second), reentrant.New(lc, name))
	admin := srv.Client(t)
	redistest.Eventually(t, 10*time.Second, "the pub/sub connection to be killed", func() bool {
		n, err := admin.ClientKillByFilter(context.Background(), "TYPE", "pubsub").Result()
		return err == nil && n > 0
	})
	redistest.Eventually(t, 10*time.Second, "a Warn of the broken pub/sub connection", logged("WARN", "pub/sub"))
	redistest.MustUnlock(t, holder)
	if err := redistest.Receive(t, got, 10*time.Second, "the waiter's Lock"); err != nil {
		t.Fatal(err)
	}

	// A hold whose renewals cannot reach the server.
	m := reentrant.New(lc, redistest.Unique(t), lockkit.WithWatchdogTimeout(600*time.Millisecond))
	redistest.MustLock(t, m)
	p.Cut()
	redistest.Eventually(t, 10*time.Second, "a Warn of the failed renewal", logged("WARN", "renewal failed"))
	p.Heal()
}
