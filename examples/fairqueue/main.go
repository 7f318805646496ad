// Command fairqueue shows a fair lock sharing one resource among workers:
// each worker asks for the lock again as soon as it lets go, and the lock
// still goes round in the order they asked, so no worker waits more than
// one round. The program checks that: between two turns of a worker, no
// other worker has two. (With a -hold shorter than it takes a worker to ask
// again, one may ask only after another's next turn; the program says so.)
//
//	go run ./examples/fairqueue               # embedded Redis
//	go run ./examples/fairqueue -redis :6379  # a real server
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lockkit/lockkit/examples/internal/exampleredis"
	"github.com/lockkit/lockkit/fair"
)

func main() {
	var (
		workers, rounds int
		hold            time.Duration
	)
	flag.IntVar(&workers, "workers", 4, "number of workers")
	flag.IntVar(&rounds, "rounds", 3, "turns each worker takes")
	flag.DurationVar(&hold, "hold", 5*time.Millisecond, "how long each turn holds the lock")
	_, locks, closeRedis := exampleredis.Connect() // parses the flags
	defer closeRedis()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var (
		mu    sync.Mutex
		turns []int // workers in the order they held the lock
		wg    sync.WaitGroup
	)
	fmt.Printf("%d workers take %d turns each at one lock; each asks again as soon as it lets go\n", workers, rounds)
	for w := range workers {
		m := fair.New(locks, "fairqueue-demo")
		wg.Go(func() {
			for range rounds {
				if err := m.Lock(ctx); err != nil {
					log.Fatalf("worker %d: %v", w, err)
				}
				mu.Lock()
				turns = append(turns, w)
				mu.Unlock()
				time.Sleep(hold) // the work the lock protects
				if err := m.Unlock(ctx); err != nil {
					log.Fatalf("worker %d: %v", w, err)
				}
			}
		})
	}
	wg.Wait()
	fmt.Println("workers in the order they held the lock:", strings.Trim(fmt.Sprint(turns), "[]"))
	if err := oneRound(turns); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("between two turns of a worker every other worker had one at most: nobody waited more than one round")
}

// oneRound checks that between two turns of any worker no other worker had
// two: a worker that asks again at once is overtaken only by those that
// asked before it.
func oneRound(turns []int) error {
	for i, w := range turns {
		next := slices.Index(turns[i+1:], w)
		if next < 0 {
			continue // w's last turn: it waits for nothing
		}
		seen := map[int]bool{}
		for _, v := range turns[i+1 : i+1+next] {
			if seen[v] {
				return fmt.Errorf("worker %d had two turns between two of worker %d: %d asked again only after %d had (try a longer -hold)", v, w, w, v)
			}
			seen[v] = true
		}
	}
	return nil
}
