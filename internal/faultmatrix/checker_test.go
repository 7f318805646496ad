package faultmatrix_test

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

//go:embed fence.lua
var fenceSource string

// fence is the fenced store's script; see fence.lua.
var fence = redis.NewScript(fenceSource)

//go:embed fenceshared.lua
var fenceSharedSource string

// fenceShared is the fenced store's script for a lock of several permits;
// see fenceshared.lua.
var fenceShared = redis.NewScript(fenceSharedSource)

// checker watches the holders of one lock (see the package doc). Its
// counters live on a server that no fault touches.
type checker struct {
	store         redis.UniversalClient
	plain, fenced string   // the plain and the fenced counter
	fences        []string // per lock name, the largest token accepted
	// permits is how many holders may be inside at once. Above 1 (a
	// semaphore), both counters are incremented in one command, which
	// concurrent holders may do, and the fenced store refuses a hold when
	// that many newer holds are inside (fenceshared.lua).
	permits int
	held    string // the fenced store's set of holds inside (permits > 1)

	mu       sync.Mutex
	inside   []*entry // holders inside the lock now
	overlaps int      // entries while a holder not told of its loss was inside
	refused  int      // calls of the fenced store refused: a stale token
	writes   int      // increments of the plain counter
	accepted int      // writes the fenced store accepted
	err      error    // the first error of the store
	log      []string // the refused calls
	// lostOnReturn counts holds whose lost signal had closed by the time
	// Lock returned them.
	lostOnReturn int
}

// newChecker returns the checker of the lock called name of kind k.
func newChecker(store redis.UniversalClient, k kind, name string) *checker {
	c := &checker{store: store, plain: "plain:" + name, fenced: "fenced:" + name,
		permits: max(1, k.permits), held: "inside:" + name}
	for _, n := range k.names(name) {
		c.fences = append(c.fences, "fence:"+n)
	}
	return c
}

// entry is one holder inside the lock.
type entry struct {
	c      *checker
	read   bool
	lost   []<-chan struct{}
	tokens []int64
	n      int64 // the plain counter it read
	v      int64 // the fenced counter it read; -1 if refused
}

// begin enters the lock as o, which has just locked it: it records an
// overlap for each holder beyond the permits that excludes o, is inside
// and has not been told it lost the lock, then reads both counters (a
// reader only checks its token).
func (c *checker) begin(ctx context.Context, o owner) *entry {
	e := &entry{c: c, read: o.read, lost: o.lost(), tokens: o.tokens()}
	c.mu.Lock()
	excluding := 0
	for _, other := range c.inside {
		if (!e.read || !other.read) && !redistest.AnyClosed(other.lost) {
			excluding++
		}
	}
	c.overlaps += max(0, excluding-c.permits+1)
	c.inside = append(c.inside, e)
	if redistest.AnyClosed(e.lost) {
		// Lock returned a hold already reported lost (its token reads 0):
		// the holder is told, so it keeps away from the store.
		c.lostOnReturn++
		c.mu.Unlock()
		e.v = -1
		return e
	}
	c.mu.Unlock()

	op := "read"
	if e.read {
		op = "check"
	}
	e.v = c.call(ctx, op, 0, e.tokens)
	n, err := c.store.Get(ctx, c.plain).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		c.fail(err)
	}
	e.n = n
	return e
}

// finish leaves the lock. A writer still holding it (its lost signals all
// open) first writes both counters one higher than it read them.
//
// With several permits, the writer increments both counters instead, and
// every holder that entered the fenced store leaves it.
func (e *entry) finish(ctx context.Context) {
	c := e.c
	if !e.read && !redistest.AnyClosed(e.lost) {
		var err error
		if c.permits > 1 {
			err = c.store.Incr(ctx, c.plain).Err()
		} else {
			err = c.store.Set(ctx, c.plain, e.n+1, 0).Err()
		}
		if err != nil {
			c.fail(err)
		}
		c.mu.Lock()
		c.writes++
		c.mu.Unlock()
		if e.v >= 0 && c.call(ctx, "write", e.v+1, e.tokens) >= 0 {
			c.mu.Lock()
			c.accepted++
			c.mu.Unlock()
		}
	}
	if c.permits > 1 && e.v >= 0 {
		c.call(ctx, "leave", 0, e.tokens)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inside = slices.DeleteFunc(c.inside, func(x *entry) bool { return x == e })
}

// call runs the fenced store's script and counts a refusal.
func (c *checker) call(ctx context.Context, op string, value int64, tokens []int64) int64 {
	argv := []any{op, value}
	for _, t := range tokens {
		argv = append(argv, t)
	}
	script, keys := fence, append([]string{c.fenced}, c.fences...)
	if c.permits > 1 {
		script, keys = fenceShared, []string{c.fenced, c.held}
		argv = append([]any{op, c.permits}, tokens[0])
	}
	r, err := script.Run(ctx, c.store, keys, argv...).Int64()
	if err != nil {
		c.fail(err)
		return -1
	}
	if r < 0 {
		fences, _ := c.store.MGet(ctx, c.fences...).Result()
		c.mu.Lock()
		c.refused++
		c.log = append(c.log, fmt.Sprintf("%s with tokens %v refused: the fences are at %v", op, tokens, fences))
		c.mu.Unlock()
	}
	return r
}

// fail records the first error of the store.
func (c *checker) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

// verdict is what the checker found once every holder has left.
type verdict struct {
	overlaps, refused int
	lostOnReturn      int
	lostPlain         int // increments of the plain counter lost
	lostFenced        int // accepted writes of the fenced counter lost
}

// verdict reads the counters back.
func (c *checker) verdict(ctx context.Context) (verdict, error) {
	plain, err := c.store.Get(ctx, c.plain).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return verdict{}, err
	}
	fenced, err := c.store.Get(ctx, c.fenced).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return verdict{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return verdict{}, fmt.Errorf("the checker's store: %w", c.err)
	}
	if len(c.inside) > 0 {
		return verdict{}, errors.New(strconv.Itoa(len(c.inside)) + " holders still inside")
	}
	return verdict{overlaps: c.overlaps, refused: c.refused, lostOnReturn: c.lostOnReturn,
		lostPlain: c.writes - plain, lostFenced: c.accepted - fenced}, nil
}
