// Command rwcache shows a read-heavy cache shared through Redis and
// guarded by a read-write lock from package rwlock: many readers read it
// together under the read lock, and a refresher rewrites it under the write
// lock, then downgrades to the read lock to check what it wrote.
//
// The cached entry is two Redis fields (a version and a payload) that the
// refresher writes one after the other, as a multi-step refresh would. The
// lock is what keeps readers from seeing a torn pair; the program counts
// torn reads to show there are none.
//
// It runs on an embedded Redis by default, so it needs nothing but Go:
//
//	go run ./examples/rwcache                     # embedded Redis
//	go run ./examples/rwcache -redis :6379        # a real server
//	go run ./examples/rwcache -readers 16 -refreshes 5
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkit/lockkit/examples/internal/exampleredis"
	"github.com/lockkit/lockkit/rwlock"
)

func main() {
	readers := flag.Int("readers", 8, "reader goroutines, each its own lock owner")
	refreshes := flag.Int("refreshes", 3, "how many times the refresher rewrites the cache")
	every := flag.Duration("every", 200*time.Millisecond, "pause between refreshes")
	client, locks, closeRedis := exampleredis.Connect() // parses the flags
	defer closeRedis()
	if *readers < 1 || *refreshes < 1 || *every <= 0 {
		log.Fatal("rwcache: -readers and -refreshes must be at least 1, -every positive")
	}

	ctx := context.Background()
	c := &cache{client: client, locks: locks, key: "rwcache:{config}:entry", lock: "config"}
	if err := c.store(ctx, 1); err != nil {
		log.Fatalf("rwcache: %v", err)
	}
	if err := run(ctx, c, *readers, *refreshes, *every); err != nil {
		closeRedis()
		log.Fatalf("rwcache: %v", err)
	}
}

func run(ctx context.Context, c *cache, readers, refreshes int, every time.Duration) error {
	// Cancelled if a refresh fails: it may still hold the write lock, and
	// readers waiting for the read lock must not wait for ever.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := make(chan struct{})
	var reads, torn atomic.Int64
	seen := make([]atomic.Int64, readers) // the latest version each reader saw
	var wg sync.WaitGroup
	errs := make(chan error, readers+1)
	fmt.Printf("%d readers read the cache under the read lock, together\n", readers)
	for i := range readers {
		m := rwlock.New(c.locks, c.lock) // one owner per reader
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := m.RLock(ctx); err != nil {
					errs <- err
					return
				}
				v, bad, err := c.load(ctx)
				time.Sleep(time.Millisecond) // use the value while holding the lock
				if uerr := m.RUnlock(ctx); err == nil {
					err = uerr
				}
				if err != nil {
					errs <- err
					return
				}
				reads.Add(1)
				if bad {
					torn.Add(1)
				}
				seen[i].Store(int64(v))
			}
		})
	}

	w := rwlock.New(c.locks, c.lock)
	for n := 1; n <= refreshes; n++ {
		time.Sleep(every) // readers read meanwhile
		if err := refresh(ctx, c, w, n+1); err != nil {
			cancel()
			close(stop)
			wg.Wait()
			return err
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}

	latest := 0
	for i := range seen {
		if int(seen[i].Load()) == refreshes+1 {
			latest++
		}
	}
	mode, err := w.Mode(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("done: %d reads, %d torn, %d of %d readers saw the last version %d; lock %s\n",
		reads.Load(), torn.Load(), latest, readers, refreshes+1, mode)
	if torn.Load() > 0 {
		return fmt.Errorf("%d torn reads: readers saw a refresh half done", torn.Load())
	}
	return nil
}

// refresh rewrites the cache to version v under the write lock, then
// downgrades to the read lock to check it while readers come back in.
func refresh(ctx context.Context, c *cache, w *rwlock.RWMutex, v int) error {
	s, err := w.State(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := w.Lock(ctx); err != nil {
		return err
	}
	waited := time.Since(start)
	if err := c.store(ctx, v); err != nil {
		return err
	}
	fmt.Printf("refresh %d: %d readers inside when the writer asked; it held new readers back, got the write lock after %v, wrote version %d (token %d)\n",
		v-1, s.Readers, waited.Round(100*time.Microsecond), v, w.Token())

	// Downgrade: take the read lock before giving up the write lock, so no
	// other writer can change the entry before we check it.
	if err := w.RLock(ctx); err != nil {
		return err
	}
	if err := w.Unlock(ctx); err != nil {
		return err
	}
	got, torn, err := c.load(ctx)
	if err != nil {
		return err
	}
	n, err := w.Readers(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("refresh %d: downgraded to read; verified version %d (torn: %v); %d readers inside now, the refresher included\n",
		v-1, got, torn, n)
	return w.RUnlock(ctx)
}
