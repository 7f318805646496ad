package notify_test

import (
	"context"
	"fmt"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/notify"
)

// Example waits on a channel for a release published by another process,
// as a lock's waiter does: subscribe (confirmed), try the lock, then wait.
func Example() {
	mr, _ := miniredis.Run()
	rc := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	n := notify.New(rc) // one per Redis client, shared by every channel
	defer func() { n.Close(); rc.Close(); mr.Close() }()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w, err := n.Subscribe(ctx, "lock:orders:42")
	if err != nil {
		panic(err)
	}
	// Subscribed and confirmed: a release published from now on reaches w.
	// (A lock tries once more here, so a release just before is not missed.)
	rc.Publish(ctx, "lock:orders:42", notify.WakeOne) // the holder's release
	if err := w.Wait(ctx, -1); err != nil {           // no timeout: a wake-up or ctx
		panic(err)
	}
	fmt.Println("woken")
	w.Leave(true) // got the lock: the wake-up was used
	// Output:
	// woken
}
