package fair_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// BenchmarkContended has G goroutines take turns on one lock, each holding
// it for 1 ms, with the fair and the reentrant lock in the same run. One op
// is one acquisition. Besides ns/op it reports:
//
//   - acq/s: acquisitions per second;
//   - p50-wait-ms, p99-wait-ms, max-wait-ms: time from calling Lock to
//     holding the lock;
//   - p99/turn: p99 wait over G × (hold + hand-off), one full round of the
//     queue (the fair lock's target is at most 1.2);
//   - handoff-ms: mean time per acquisition beyond the hold;
//   - jain: Jain's fairness index over the goroutines' acquisition counts
//     (1 = perfectly even);
//   - starved: goroutines that got less than half their fair share;
//   - scripts/acq and cmds/acq: scripts and all commands the client sent,
//     per acquisition (Lock and Unlock);
//   - subs/acq: SUBSCRIBE and UNSUBSCRIBE commands the server received per
//     acquisition (pub/sub commands bypass client hooks).
//
// "clients=1" is one process (all goroutines share a lockkit Client: one
// PubSub connection and one watchdog); "clients=G" gives every goroutine a
// Client and a go-redis client of its own, as if each were a process of
// its own.
func BenchmarkContended(b *testing.B) {
	const G, hold = 64, time.Millisecond
	srv := redistest.StartServer(b)
	kinds := []struct {
		name string
		make func(c *lockkit.Client, name string) lockkit.Locker
	}{
		{"fair", func(c *lockkit.Client, name string) lockkit.Locker { return fair.New(c, name) }},
		{"reentrant", func(c *lockkit.Client, name string) lockkit.Locker { return reentrant.New(c, name) }},
	}
	for _, clients := range []int{1, G} {
		for _, kind := range kinds {
			b.Run(fmt.Sprintf("clients=%d/%s", clients, kind.name), func(b *testing.B) {
				benchContended(b, srv, clients, G, hold, kind.make)
			})
		}
	}
}

func benchContended(b *testing.B, srv *redistest.Server, clients, g int, hold time.Duration, mk func(*lockkit.Client, string) lockkit.Locker) {
	counter := redistest.NewCounter()
	cs := make([]*lockkit.Client, clients)
	for i := range cs {
		rc := redis.NewClient(&redis.Options{Addr: srv.Addr()})
		rc.AddHook(counter.Hook())
		cs[i] = lockkit.New(rc)
		defer rc.Close()
		defer cs[i].Close()
	}
	admin := srv.Client(b)
	name := redistest.Unique(b)
	ctx := context.Background()
	if err := admin.ConfigResetStat(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	counter.Reset()

	var (
		budget atomic.Int64
		wg     sync.WaitGroup
		failed atomic.Bool
	)
	budget.Store(int64(b.N))
	waits := make([][]time.Duration, g)
	held := make([]time.Duration, g)
	start := make(chan struct{})
	for i := range g {
		m := mk(cs[i%clients], name)
		wg.Go(func() {
			<-start
			for budget.Add(-1) >= 0 {
				t0 := time.Now()
				if err := m.Lock(ctx); err != nil {
					b.Error(err)
					failed.Store(true)
					return
				}
				t1 := time.Now()
				waits[i] = append(waits[i], t1.Sub(t0))
				time.Sleep(hold)
				held[i] += time.Since(t1)
				if err := m.Unlock(ctx); err != nil {
					b.Error(err)
					failed.Store(true)
					return
				}
			}
		})
	}
	b.ResetTimer()
	t0 := time.Now()
	close(start)
	wg.Wait()
	elapsed := time.Since(t0)
	b.StopTimer()
	if failed.Load() {
		return
	}

	var all []time.Duration
	var totalHeld time.Duration
	counts := make([]float64, g)
	for i := range g {
		all = append(all, waits[i]...)
		counts[i] = float64(len(waits[i]))
		totalHeld += held[i]
	}
	slices.Sort(all)
	n := float64(len(all))
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(p*n))] }
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	handoff := (elapsed - totalHeld) / time.Duration(len(all))
	turn := time.Duration(g) * (totalHeld/time.Duration(len(all)) + handoff)

	b.ReportMetric(n/elapsed.Seconds(), "acq/s")
	b.ReportMetric(ms(pct(0.50)), "p50-wait-ms")
	b.ReportMetric(ms(pct(0.99)), "p99-wait-ms")
	b.ReportMetric(ms(all[len(all)-1]), "max-wait-ms")
	b.ReportMetric(float64(pct(0.99))/float64(turn), "p99/turn")
	b.ReportMetric(ms(handoff), "handoff-ms")
	b.ReportMetric(jain(counts), "jain")
	b.ReportMetric(float64(starved(counts)), "starved")
	b.ReportMetric(float64(counter.Scripts())/n, "scripts/acq")
	b.ReportMetric(float64(counter.Total())/n, "cmds/acq")
	b.ReportMetric(float64(subscribeCalls(b, admin))/n, "subs/acq")
}

// jain returns Jain's fairness index of xs: (Σx)² / (n·Σx²).
func jain(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if sq == 0 {
		return 1
	}
	return sum * sum / (float64(len(xs)) * sq)
}

// starved counts the entries of xs below half the mean.
func starved(xs []float64) int {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	share := sum / float64(len(xs))
	n := 0
	for _, x := range xs {
		if x < share/2 {
			n++
		}
	}
	return n
}

// subscribeCalls returns the SUBSCRIBE and UNSUBSCRIBE calls the server
// counted since its statistics were reset.
func subscribeCalls(b *testing.B, c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for _, line := range strings.Split(info, "\n") {
		for _, cmd := range []string{"cmdstat_subscribe:", "cmdstat_unsubscribe:"} {
			rest, ok := strings.CutPrefix(strings.TrimSpace(line), cmd+"calls=")
			if !ok {
				continue
			}
			calls, _, _ := strings.Cut(rest, ",")
			n, _ := strconv.ParseInt(calls, 10, 64)
			total += n
		}
	}
	return total
}

// BenchmarkUncontended is one owner locking and unlocking a free lock.
func BenchmarkUncontended(b *testing.B) {
	c := redistest.StartServer(b).Client(b)
	counter := redistest.CountCommands(c)
	lc := redistest.Lockkit(b, c)
	for _, kind := range []struct {
		name string
		m    lockkit.Locker
	}{
		{"fair", fair.New(lc, redistest.Unique(b))},
		{"reentrant", reentrant.New(lc, redistest.Unique(b))},
	} {
		b.Run(kind.name, func(b *testing.B) {
			redistest.BenchLockUnlock(b, kind.m, counter)
		})
	}
}
