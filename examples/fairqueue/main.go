// Command fairqueue shows a fair lock sharing one resource among workers:
// each worker asks for the lock again as soon as it lets go, and the lock
// still goes round in the order they asked, so no worker waits more than
// one round.
//
//	go run ./examples/fairqueue               # embedded Redis
//	go run ./examples/fairqueue -redis :6379  # a real server
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/lockkit/lockkit/examples/internal/exampleredis"
	"github.com/lockkit/lockkit/fair"
)

func main() {
	workers := flag.Int("workers", 4, "number of workers")
	rounds := flag.Int("rounds", 3, "turns each worker takes")
	hold := flag.Duration("hold", 5*time.Millisecond, "how long each turn holds the lock")
	client, closeRedis, err := exampleredis.Connect() // parses the flags
	if err != nil {
		log.Fatal(err)
	}
	defer closeRedis()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var (
		mu    sync.Mutex
		turns []string
		wg    sync.WaitGroup
	)
	fmt.Printf("%d workers take %d turns each at one lock; each asks again as soon as it lets go\n", *workers, *rounds)
	for w := range *workers {
		m := fair.New(client, "fairqueue-demo")
		wg.Go(func() {
			for range *rounds {
				if err := m.Lock(ctx); err != nil {
					log.Fatalf("worker %d: %v", w, err)
				}
				mu.Lock()
				turns = append(turns, fmt.Sprint(w))
				mu.Unlock()
				time.Sleep(*hold) // the work the lock protects
				if err := m.Unlock(ctx); err != nil {
					log.Fatalf("worker %d: %v", w, err)
				}
			}
		})
	}
	wg.Wait()
	fmt.Println("workers in the order they held the lock:", strings.Join(turns, " "))
	fmt.Println("every round goes through all workers in the same order: nobody waits more than one round")
}
