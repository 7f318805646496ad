package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

//go:embed snapshot.lua
var snapshotSource string

// snapshotScript reads a lock's keys at one instant; see snapshot.lua.
var snapshotScript = redis.NewScript(snapshotSource)

// snapshot is what snapshot.lua read about one lock, undecoded.
type snapshot struct {
	now      int64        // server time, ms
	fields   []fieldValue // the hash, in the order HGETALL gave
	hashPTTL int64        // -2: no hash; -1: no TTL
	fence    int64        // last token minted; 0 when none
	queue    sortedSet    // fair: waiters by arrival
	deadline []*int64     // fair: each queue entry's deadline, nil if none
	timeouts sortedSet    // fair: deadlines by time
	leases   sortedSet    // rwlock: holds by lease deadline
	writers  sortedSet    // rwlock: intents by deadline
	procs    sortedSet    // reentrant: waiting processes by registration end
	permits  *int64       // semaphore: the number set at run time, nil if none
	// permitsPTTL is the PTTL of the number of permits set at run time.
	permitsPTTL int64
	keys        lockKeys // the keys read
	name        string   // the lock's name
}

// fieldValue is one field of a hash.
type fieldValue struct{ field, value string }

// sortedSet is the head of a sorted set: its size, its PTTL and its first
// entries.
type sortedSet struct {
	card, pttl int64
	entries    []scored
}

// scored is a sorted-set member and its score (every score lockkit keeps
// is an integer).
type scored struct {
	member string
	score  int64
}

// readSnapshot reads lock name under prefix in one round trip.
func readSnapshot(ctx context.Context, rc redis.UniversalClient, prefix, name string) (*snapshot, error) {
	k := keysOf(prefix, name)
	keys := []string{k.Base, k.Fence, k.Waiters, k.Timeouts, k.Leases, k.Writers, k.Procs}
	// No ARGV: with its seven keys the request is ten elements, the most a
	// server that wants a password reads before it answers NOAUTH.
	v, err := snapshotScript.RunRO(ctx, rc, keys).Slice()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Base, err)
	}
	s, err := parseSnapshot(v)
	if err != nil {
		return nil, fmt.Errorf("reading %s: unexpected reply: %w", k.Base, err)
	}
	s.keys, s.name = k, name
	if kind := kindOf(s); kind == kindSemaphore || kind == "" {
		if err := readPermits(ctx, rc, s); err != nil {
			return nil, fmt.Errorf("reading %s: %w", k.Permits, err)
		}
	}
	return s, nil
}

// readPermits reads the number of permits a semaphore's SetPermits stored,
// and its PTTL, into s: a second round trip, for a semaphore (or a name
// without a hash, which may be a semaphore holding nothing). The snapshot
// script cannot read it too: see readSnapshot.
func readPermits(ctx context.Context, rc redis.UniversalClient, s *snapshot) error {
	var get *redis.StringCmd
	var pttl *redis.DurationCmd
	_, err := rc.Pipelined(ctx, func(p redis.Pipeliner) error {
		get = p.Get(ctx, s.keys.Permits)
		pttl = p.PTTL(ctx, s.keys.Permits)
		return nil
	})
	if errors.Is(err, redis.Nil) {
		return nil
	}
	if err != nil {
		return err
	}
	n, err := get.Int64()
	if err != nil {
		return fmt.Errorf("the number of permits %q: %w", get.Val(), err)
	}
	s.permits = &n
	s.permitsPTTL = -1
	if d := pttl.Val(); d >= 0 {
		s.permitsPTTL = d.Milliseconds()
	}
	return nil
}

// parseSnapshot decodes the reply of snapshot.lua.
func parseSnapshot(v []any) (*snapshot, error) {
	if len(v) != 10 {
		return nil, fmt.Errorf("%d elements, want 10", len(v))
	}
	p := &parser{}
	s := &snapshot{
		now:      p.int(v[0]),
		hashPTTL: p.int(v[2]),
		queue:    p.zset(v[4]),
		timeouts: p.zset(v[6]),
		leases:   p.zset(v[7]),
		writers:  p.zset(v[8]),
		procs:    p.zset(v[9]),
	}
	if v[3] != nil {
		s.fence = p.int(v[3])
	}
	flat := p.list(v[1])
	for i := 0; i+1 < len(flat); i += 2 {
		s.fields = append(s.fields, fieldValue{p.str(flat[i]), p.str(flat[i+1])})
	}
	for _, d := range p.list(v[5]) {
		if d == nil {
			s.deadline = append(s.deadline, nil)
			continue
		}
		n := p.int(d)
		s.deadline = append(s.deadline, &n)
	}
	return s, p.err
}

// parser decodes reply values, keeping the first error.
type parser struct{ err error }

func (p *parser) fail(format string, a ...any) {
	if p.err == nil {
		p.err = fmt.Errorf(format, a...)
	}
}

// int decodes an integer reply, or an integer in a string (a score).
func (p *parser) int(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(v, 64)
			if ferr != nil {
				p.fail("%q is not a number", v)
			}
			return int64(f)
		}
		return n
	}
	p.fail("%v (%T) is not a number", v, v)
	return 0
}

// str decodes a string reply.
func (p *parser) str(v any) string {
	s, ok := v.(string)
	if !ok {
		p.fail("%v (%T) is not a string", v, v)
	}
	return s
}

// list decodes an array reply.
func (p *parser) list(v any) []any {
	l, ok := v.([]any)
	if !ok && v != nil {
		p.fail("%v (%T) is not an array", v, v)
	}
	return l
}

// zset decodes {card, pttl, member, score, ...}.
func (p *parser) zset(v any) sortedSet {
	l := p.list(v)
	if len(l) < 2 {
		p.fail("sorted set reply of %d elements", len(l))
		return sortedSet{}
	}
	z := sortedSet{card: p.int(l[0]), pttl: p.int(l[1])}
	for i := 2; i+1 < len(l); i += 2 {
		z.entries = append(z.entries, scored{p.str(l[i]), p.int(l[i+1])})
	}
	return z
}
