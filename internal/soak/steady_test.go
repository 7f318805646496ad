package soak_test

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// settleBound bounds how long the state takes to settle after a round:
// the notifier's linger, the watchdog's goroutine's exit, the go-redis
// pools' dial probes (a second apart) and the released tokens' 10 s.
const settleBound = 15 * time.Second

// heapBound bounds the heap's growth from the first round to the last,
// per server, besides the buffers of the connections the pools opened
// meanwhile: a coarse check, as a GC's timing moves the heap by hundreds
// of KiB, and so do the buffers of the proxies' connections, which the
// faults replace; the Clients' footprint and the goroutines are the fine
// checks.
const heapBound = 1 << 20

// connBuffers is what a connection of a go-redis pool takes at the most:
// its read and write buffers (32 KiB each by default), and as much again.
const connBuffers = 4 * 32 << 10

// gcEvery is how many of settleAll's polls, a couple of milliseconds
// apart, run a garbage collection: enough to let go of dropped lock values
// soon, few enough to leave the CPU to the locks.
const gcEvery = 50

// steady is the state of a soak's process after its first round, to
// which every later round must come back.
type steady struct {
	goroutines int
	heap       uint64
	pooled     int
}

// footprint is what the Clients of e keep between rounds: nothing, but
// for an election's observer, which keeps its channel on one PubSub
// connection of side b.
func (e *env) footprint() redistest.Footprint {
	if observed(e.K) {
		return redistest.Footprint{Channels: 1, Conns: 1}
	}
	return redistest.Footprint{}
}

// settle waits until e is as it should be between rounds (see
// settleAll).
func (e *env) settle(t *testing.T, base *steady) { settleAll(t, []*env{e}, base) }

// settleAll waits until es, envs of one deployment that share their
// sides, are as they should be between rounds: the Clients keep the sum
// of the envs' footprints, no more goroutines run than in base (nil:
// none, for the first round), the servers have no more subscribed
// channels than the footprint's and no key but those the kinds document.
// It fails the test, saying what was left, otherwise.
func settleAll(t *testing.T, es []*env, base *steady) {
	t.Helper()
	e := es[0]
	var want redistest.Footprint
	for _, e := range es {
		f := e.footprint()
		want.Channels += f.Channels
		want.Conns = max(want.Conns, f.Conns) // one connection for all
	}
	polls := 0
	redistest.Until(t, settleBound, func() string {
		if polls++; polls%gcEvery == 0 {
			runtime.GC() // lock values dropped are let go of once they are garbage
		}
		f := redistest.FootprintOf(e.clients()...)
		g := runtime.NumGoroutine() // the proxies' too: counted apart only when over
		if f == want && base != nil && g > base.goroutines {
			g = goroutines()
		}
		if f == want && (base == nil || g <= base.goroutines) {
			return ""
		}
		if base == nil {
			return fmt.Sprintf("with the Clients keeping %+v, want %+v", f, want)
		}
		return fmt.Sprintf("with the Clients keeping %+v, want %+v, and %d goroutines running (%d after the first round)", f, want, g, base.goroutines)
	})
	kept := func(key string, ttl time.Duration) bool {
		return slices.ContainsFunc(es, func(e *env) bool { return e.kept(key, ttl) })
	}
	for _, rc := range e.Admins {
		redistest.Until(t, settleBound, func() string {
			if n := subscribed(t, rc, e.Prefix); n > want.Channels {
				return fmt.Sprintf("with %d channels subscribed on %s, want %d", n, rc.Options().Addr, want.Channels)
			}
			return ""
		})
		redistest.KeysSettle(t, rc, e.Prefix, kept)
	}
}

// kept accepts the keys e's kind documents as staying in Redis between
// rounds: a lock's fencing counter and released tokens, and the hashes of
// the latches (named e.Name and a round), which expire in their 24 h.
func (e *env) kept(key string, ttl time.Duration) bool {
	if e.K.Owner == nil {
		return strings.HasPrefix(key, e.Prefix+":{"+e.Name) && !strings.Contains(key, "}:") && ttl > 0 && ttl <= latch.DefaultExpiry
	}
	return redistest.LockKept(key, ttl)
}

// measure returns the state of e's process after its first round, once
// settled.
func (e *env) measure() *steady {
	return &steady{goroutines: goroutines(), heap: redistest.HeapInUse(), pooled: pooled(e.clients())}
}

// checkHeap fails the test if the heap grew since base by more than
// heapBound and the buffers of the connections the pools opened since.
func (e *env) checkHeap(t *testing.T, base *steady) {
	t.Helper()
	grown := int64(redistest.HeapInUse()) - int64(base.heap)
	opened := max(pooled(e.clients())-base.pooled, 0)
	t.Logf("the heap grew by %d bytes since the first round, with %d connections more in the pools", grown, opened)
	if bound := int64(heapBound*len(e.Servers) + opened*connBuffers); grown > bound {
		t.Errorf("the heap grew by %d bytes since the first round, with %d connections more in the pools; want at most %d", grown, opened, bound)
	}
}

// subscribed returns how many channels whose name begins with prefix the
// server of rc has subscribers on, classic or shard.
func subscribed(t *testing.T, rc *redis.Client, prefix string) int {
	t.Helper()
	n := 0
	for _, cmd := range []string{"CHANNELS", "SHARDCHANNELS"} {
		chans, err := rc.Do(redistest.Ctx(t, callBound), "PUBSUB", cmd, prefix+"*").StringSlice()
		if err != nil {
			t.Fatalf("PUBSUB %s: %v", cmd, err)
		}
		n += len(chans)
	}
	return n
}

// pooled returns how many connections the pools of the go-redis clients
// under cs hold.
func pooled(cs []*lockkit.Client) int {
	n := 0
	for _, c := range cs {
		if p, ok := c.Redis().(interface{ PoolStats() *redis.PoolStats }); ok {
			n += int(p.PoolStats().TotalConns)
		}
	}
	return n
}

// goroutines returns how many goroutines run, leaving out those of the
// test's proxies, whose number follows the connections the go-redis pools
// keep open, not anything lockkit keeps.
func goroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if !bytes.Contains(g, []byte("redistest.(*Proxy)")) {
			count++
		}
	}
	return count
}
