package redistest

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
)

// settleTimeout bounds how long [Settled] and [KeysSettle] wait for what
// the locks kept to go: the notifier's linger (100 ms), the watchdog's
// goroutine's exit (100 ms), clean-ups in the background and the keys
// whose TTL is a short lease plus 2 s.
const settleTimeout = 15 * time.Second

// Footprint is what lockkit Clients keep in memory for their locks: the
// channels and PubSub connections of their notifiers, the holds their
// watchdogs renew and the entries of their Locals (the places of waiting
// owners, the reentrant lock's cohorts).
type Footprint struct {
	Channels, Conns, Holds, Locals int
}

// FootprintOf returns what clients keep, summed.
func FootprintOf(clients ...*lockkit.Client) Footprint {
	var f Footprint
	for _, c := range clients {
		ch, conns := c.Notifier().Kept()
		f.Channels += ch
		f.Conns += conns
		f.Holds += c.Watchdog().Len()
		c.Locals(func(m map[any]any) { f.Locals += len(m) })
	}
	return f
}

// Settled waits until clients keep nothing for their locks (see
// [Footprint]) and the process runs no more goroutines than base, and
// fails the test, saying what was left, if that does not happen in time.
// Call it once every hold was given back or lost and every call returned.
func Settled(t testing.TB, base int, clients ...*lockkit.Client) {
	t.Helper()
	Until(t, settleTimeout, func() string {
		runtime.GC() // lock values dropped are let go of once they are garbage
		f := FootprintOf(clients...)
		g := runtime.NumGoroutine()
		if f == (Footprint{}) && g <= base {
			return ""
		}
		return fmt.Sprintf("with the Clients still keeping %+v, and %d goroutines running (%d before the locks)", f, g, base)
	})
}

// NoSubscriptions fails the test if the server of rc has subscribers on a
// channel or shard channel whose name begins with prefix.
func NoSubscriptions(t testing.TB, rc *redis.Client, prefix string) {
	t.Helper()
	ctx := Ctx(t, cleanTimeout)
	for _, cmd := range []string{"CHANNELS", "SHARDCHANNELS"} {
		chans, err := rc.Do(ctx, "PUBSUB", cmd, prefix+"*").StringSlice()
		if err != nil {
			t.Fatalf("PUBSUB %s: %v", cmd, err)
		}
		if len(chans) > 0 {
			t.Errorf("PUBSUB %s %s*: %d left subscribed, such as %s", cmd, prefix, len(chans), chans[0])
		}
	}
}

// KeysSettle waits until the server of rc holds no key beginning with
// prefix but those kept accepts, given their TTL (negative: none), and
// fails the test, naming some of the others, if that does not happen in
// time: the keys that end with a short TTL (a free lock kept for a woken
// process, the waiting processes) have it to end.
func KeysSettle(t testing.TB, rc *redis.Client, prefix string, kept func(key string, ttl time.Duration) bool) {
	t.Helper()
	Until(t, settleTimeout, func() string {
		left := keysBeyond(t, rc, prefix+"*", kept)
		if len(left) == 0 {
			return ""
		}
		return fmt.Sprintf("with %d keys left behind, such as %s", len(left), strings.Join(left[:min(5, len(left))], ", "))
	})
}

// LockKept is what the docs say an exclusive lock keeps in Redis once its
// holds were given back: its fencing counter, which has no TTL, the keys
// that remember a released token for 10 s, and those that mark an undone
// acquire for 5 minutes (named by its attempt id, never a bare number).
func LockKept(key string, ttl time.Duration) bool {
	switch {
	case strings.HasSuffix(key, ":fence"):
		return ttl < 0
	case strings.Contains(key, "}:released:"):
		window := 10 * time.Second
		if _, err := strconv.ParseInt(key[strings.LastIndex(key, ":")+1:], 10, 64); err != nil {
			window = 5 * time.Minute
		}
		return ttl > 0 && ttl <= window
	}
	return false
}

// HeapInUse returns the bytes of live heap objects after two collections.
func HeapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
