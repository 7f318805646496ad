package redistest_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestRestartFrom_brings_back_the_data_of_the_snapshot_alone checks, for
// RDB and AOF, that a server restarted from a Snapshot has the keys written
// before it, with their expiry, and not those written after.
func TestRestartFrom_brings_back_the_data_of_the_snapshot_alone(t *testing.T) {
	for _, p := range []redistest.Persistence{redistest.RDB, redistest.AOF} {
		t.Run(p.String(), func(t *testing.T) {
			s := redistest.StartPersistent(t, 1, p)[0]
			c := s.Client(t)
			ctx := redistest.Ctx(t, 10*time.Second)
			if err := c.Set(ctx, "before", "1", time.Hour).Err(); err != nil {
				t.Fatal(err)
			}
			snap := s.Snapshot(t)
			if err := c.Set(ctx, "after", "1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			if err := c.Del(ctx, "before").Err(); err != nil {
				t.Fatal(err)
			}
			s.RestartFrom(t, snap)
			if n, err := c.Exists(ctx, "after").Result(); n != 0 || err != nil {
				t.Errorf("EXISTS after = %d, %v; want 0", n, err)
			}
			ttl, err := c.TTL(ctx, "before").Result()
			if err != nil || ttl <= 0 || ttl > time.Hour {
				t.Errorf("TTL before = %v, %v; want the key back with its expiry", ttl, err)
			}
		})
	}
}
