package watchdog_test

import (
	"context"
	"fmt"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/watchdog"
)

// Example keeps the lease of a key held by "worker-1" alive while the work
// runs, and learns when it is gone.
func Example() {
	mr, _ := miniredis.Run()
	rc := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	renewed := make(chan watchdog.Round, 8)
	w := watchdog.New(rc, watchdog.OnRound(func(r watchdog.Round) {
		select {
		case renewed <- r:
		default:
		}
	}))
	defer func() { w.Close(); rc.Close(); mr.Close() }()

	// Renews KEYS[1] for ARGV[2] ms if ARGV[1] still holds it: 1, else 0.
	renew := redis.NewScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
return 0`)
	const ttl = time.Second
	ctx := context.Background()
	h := w.Register() // before the acquire is sent
	sent := time.Now()
	if ok, _ := rc.SetNX(ctx, "job:42", "worker-1", ttl).Result(); !ok {
		h.Stop()
		return
	}
	lost := make(chan error, 1)
	h.Start(watchdog.Lease{
		Script: renew, Keys: []string{"job:42"}, Args: []any{"worker-1", ttl.Milliseconds()}, TTL: ttl,
		OnLost: func(cause error) { lost <- cause },
	}, sent)
	fmt.Println("renewed:", (<-renewed).Renewed) // at ttl/3

	rc.Del(ctx, "job:42") // someone took the key away
	fmt.Println("lost, cause:", <-lost)
	h.Stop()
	// Output:
	// renewed: 1
	// lost, cause: <nil>
}
