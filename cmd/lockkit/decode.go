package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The kinds a lock hash's ':kind' field names.
const (
	kindReentrant = "reentrant"
	kindSpin      = "spin"
	kindFair      = "fair"
	kindRW        = "rwlock"
	kindRedLock   = "redlock"
	kindLatch     = "latch"
	kindElection  = "election"
	kindSemaphore = "semaphore"
)

// decode turns what snapshot.lua read into the lock's state, decoding the
// hash in the layout of its kind and noting every anomaly found.
func decode(s *snapshot) *Lock {
	l := &Lock{
		Name:         s.name,
		Key:          s.keys.Base,
		ServerTimeMS: s.now,
		TTLMS:        s.hashPTTL,
		Fence:        s.fence,
		Holders:      []Holder{},
		Subscribers:  []Subscribers{},
		Anomalies:    []string{},
	}
	l.Kind = kindOf(s)
	if l.Kind == "" && s.permits != nil {
		// A semaphore holding nothing has no hash, but its number of
		// permits set at run time tells its kind.
		l.Kind = kindSemaphore
	}
	exists := s.hashPTTL != -2
	if l.Kind == kindLatch {
		// A latch has no holds: its fields are its count and the ids of
		// its count-downs, not the prelude's hold layout.
		decodeLatch(s, l)
	} else if exists && s.hashPTTL == -1 {
		l.anomaly("the hash %s has no TTL: its holds never expire", l.Key)
	}
	var h hash
	if l.Kind != kindLatch {
		h = readHash(s, l)
	}
	for _, e := range s.procs.entries {
		l.Processes = append(l.Processes, Process{ID: e.member, WaitingMS: s.now - e.score/1000})
	}
	if s.procs.card > 0 && s.procs.pttl == -1 {
		l.anomaly("the waiting processes %s have no TTL", s.keys.Procs)
	}
	switch l.Kind {
	case kindReentrant, kindSpin, kindRedLock:
		decodeExclusive(s, l, h)
	case kindFair:
		decodeExclusive(s, l, h)
		decodeQueue(s, l)
	case kindRW:
		decodeRW(s, l, h)
	case kindElection:
		decodeElection(s, l, h)
	case kindSemaphore:
		decodeSemaphore(s, l, h)
	case kindLatch:
		if s.procs.card > 0 {
			l.anomaly("%d waiting processes in %s next to a latch, whose waiters do not register", s.procs.card, s.keys.Procs)
		}
	case "":
		if exists {
			l.anomaly("the hash has no ':kind' field: no lockkit lock of this version wrote it")
			decodeExclusive(s, l, h)
		}
		// A free lock may still have waiters: a fair queue whose head is
		// on its way, or writers a read-write lock's hand-off waits for.
		if s.queue.card > 0 || s.timeouts.card > 0 {
			decodeQueue(s, l)
		}
		if s.writers.card > 0 {
			decodeIntents(s, l)
		}
		if s.leases.card > 0 {
			l.anomaly("%d read-write leases in %s without a lock hash", s.leases.card, s.keys.Leases)
		}
	default:
		l.anomaly("the hash is of an unknown kind %q", l.Kind)
		decodeExclusive(s, l, h)
	}
	if l.Kind != "" && l.Kind != kindFair && l.Kind != kindSemaphore && (s.queue.card > 0 || s.timeouts.card > 0) {
		l.anomaly("a fair lock's queue (%s) next to a %s lock", s.keys.Waiters, l.Kind)
	}
	switch {
	case l.Kind == kindSemaphore && s.writers.card > 0:
		l.anomaly("a read-write lock's intents (%s) next to a semaphore", s.keys.Writers)
	case l.Kind != "" && l.Kind != kindRW && l.Kind != kindSemaphore && (s.leases.card > 0 || s.writers.card > 0):
		l.anomaly("a read-write lock's leases or intents (%s) next to a %s lock", s.keys.Leases, l.Kind)
	}
	if l.Mode == "" {
		l.Mode = "free"
	}
	return l
}

// anomaly records a state lockkit's scripts never leave behind.
func (l *Lock) anomaly(format string, a ...any) {
	l.Anomalies = append(l.Anomalies, fmt.Sprintf(format, a...))
}

// hash is a lock hash split up: its holds and the fields that are not.
type hash struct {
	holds []Holder          // one per hold field, in field order
	meta  map[string]string // fields starting with ':' other than a hold's
}

// holdFields are the prefixes of the fields that belong to hold h
// (':t:' + h and so on), see internal/lua/prelude.lua.
const (
	tokenField   = ":t:"
	unlockField  = ":u:"
	acquireField = ":a:"
	infoField    = ":m:"
	kindField    = ":kind"
	// queueField + h is the deadline of the queue entry a fair lock's or
	// a semaphore's hold h was taken from (fair/acquire.lua,
	// semaphore/acquire.lua), for the undo of that acquire.
	queueField = ":q:"
)

// kindOf returns the hash's ':kind' field, empty when it has none.
func kindOf(s *snapshot) string {
	for _, f := range s.fields {
		if f.field == kindField {
			return f.value
		}
	}
	return ""
}

// readHash decodes the prelude's hold layout: a field not starting with
// ':' is a hold (value = count), ':t:', ':u:' and ':a:' + hold are its
// token, last partial unlock and latest acquires (ids separated by
// spaces, the last one last), ':q:' + hold the deadline of the queue
// entry it was taken from, and ':kind' the kind. It notes holds without a
// token and fields without a hold.
func readHash(s *snapshot, l *Lock) hash {
	h := hash{meta: map[string]string{}}
	per := map[string]map[string]string{tokenField: {}, unlockField: {}, acquireField: {}, infoField: {}, queueField: {}}
	for _, f := range s.fields {
		switch {
		case f.field == kindField: // read by kindOf
		case !strings.HasPrefix(f.field, ":"):
			n, err := strconv.ParseInt(f.value, 10, 64)
			if err != nil || n <= 0 {
				l.anomaly("hold %q has count %q, not a positive integer", f.field, f.value)
			}
			h.holds = append(h.holds, Holder{Owner: f.field, Hold: f.field, Count: n, LeaseMS: s.hashPTTL})
		default:
			p := f.field[:min(3, len(f.field))]
			if m, ok := per[p]; ok {
				m[f.field[3:]] = f.value
			} else {
				h.meta[f.field] = f.value
			}
		}
	}
	held := map[string]bool{}
	for i := range h.holds {
		hd := &h.holds[i]
		held[hd.Hold] = true
		t, ok := per[tokenField][hd.Hold]
		if !ok {
			l.anomaly("hold %q has no fencing token (no %s%s field)", hd.Hold, tokenField, hd.Hold)
		} else if hd.Token, _ = strconv.ParseInt(t, 10, 64); hd.Token <= 0 {
			l.anomaly("hold %q has token %q, not a positive integer", hd.Hold, t)
		}
		unlocks := per[unlockField][hd.Hold]
		hd.LastUnlock = unlocks[strings.LastIndexByte(unlocks, ' ')+1:]
		acquires := per[acquireField][hd.Hold]
		hd.LastAcquire = acquires[strings.LastIndexByte(acquires, ' ')+1:]
		hd.Info = per[infoField][hd.Hold]
	}
	for _, p := range []string{tokenField, unlockField, acquireField, infoField, queueField} {
		for _, id := range sortedKeys(per[p]) {
			if !held[id] {
				l.anomaly("field %s%s without its hold", p, id)
			}
		}
	}
	return h
}

// decodeExclusive decodes the hash of a lock with one holder at most
// (reentrant, spin, fair, a RedLock node): its lease is the hash's PTTL.
func decodeExclusive(s *snapshot, l *Lock, h hash) {
	for i := range h.holds {
		h.holds[i].Mode = "exclusive"
	}
	l.Holders = append(l.Holders, h.holds...)
	for _, f := range sortedKeys(h.meta) {
		l.anomaly("unknown field %q", f)
	}
	if s.hashPTTL != -2 && len(h.holds) == 0 {
		l.anomaly("the hash holds no hold, only its ':kind'")
	}
	if len(h.holds) > 1 {
		l.anomaly("%d holds in an exclusive lock", len(h.holds))
	}
	if len(h.holds) > 0 {
		l.Held, l.Mode = true, "exclusive"
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
