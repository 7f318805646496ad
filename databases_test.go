package lockkit_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestDB_Clients_on_two_databases_with_one_prefix_and_name_keep_apart runs
// every kind on databases 1 and 2 of one server, with the same prefix and
// lock name on both: each database's holder takes the lock at once (the
// other's hold is not in its keyspace), and a release on one wakes its own
// waiter alone, though the release messages, pub/sub being server-wide,
// reach the other database's waiter too: that one still waits for its own
// holder, and gets the lock once it releases.
func TestDB_Clients_on_two_databases_with_one_prefix_and_name_keep_apart(t *testing.T) {
	srv := redistest.StartServer(t)
	onDB := func(t *testing.T, db int) *lockkit.Client {
		rc := redis.NewClient(&redis.Options{Addr: srv.Addr(), DB: db})
		t.Cleanup(func() { _ = rc.Close() })
		return redistest.Lockkit(t, rc)
	}
	for _, k := range configKinds {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			ctx := redistest.Ctx(t, redistest.Hang)
			name := redistest.Unique(t)
			type side struct {
				release func(context.Context) error
				got     chan error
				waiter  func(context.Context) error // the waiter's release
			}
			var sides [2]*side
			for i, db := range []int{1, 2} {
				release, err := k.hold(ctx, onDB(t, db), name)
				if err != nil {
					t.Fatalf("DB %d holder: %v", db, err)
				}
				sides[i] = &side{release: release, got: make(chan error, 1)}
			}
			for i, db := range []int{1, 2} {
				s := sides[i]
				c := onDB(t, db)
				started, trace := waitStarted()
				c.AddTrace(trace)
				go func() {
					var err error
					s.waiter, err = k.wait(ctx, c, name)
					s.got <- err
				}()
				awaitWaiting(t, k, c, started)
			}
			for i, db := range []int{1, 2} {
				if err := sides[i].release(ctx); err != nil {
					t.Fatalf("DB %d holder's release: %v", db, err)
				}
				if err := redistest.Receive(t, sides[i].got, wakeBound, "the waiter of the database released"); err != nil {
					t.Fatalf("DB %d waiter: %v", db, err)
				}
				if i == 0 {
					select {
					case err := <-sides[1].got:
						t.Fatalf("DB 2 waiter returned (%v) while DB 2's holder held on", err)
					default:
					}
				}
			}
			for i, s := range sides {
				if err := s.waiter(ctx); err != nil {
					t.Errorf("DB %d waiter's release: %v", i+1, err)
				}
			}
		})
	}
}
