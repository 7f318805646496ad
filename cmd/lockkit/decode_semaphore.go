package main

import (
	"strconv"
	"strings"
)

// Fields of a semaphore's hash (semaphore/semaphore.lua) besides the
// prelude's hold layout.
const (
	usedField    = ":used"
	permitsField = ":n:"
)

// decodeSemaphore decodes a semaphore (semaphore/semaphore.lua): the hash
// PREFIX:{NAME} with ':used' = the permits held and, for each hold (count
// 1), the prelude's fields and ':n:' + its id = its permits; each hold's
// own lease in PREFIX:{NAME}:leases (member = hold id, score = server ms
// of its end); the queue in PREFIX:{NAME}:waiters and :timeouts, as a
// fair lock's but with members PERMITS:ID; the number of permits set at
// run time in PREFIX:{NAME}:permits (absent: the number each New was
// given applies, which Redis does not know). A hold whose lease has ended
// is freed by the next script; until then it shows as expired and does
// not count.
func decodeSemaphore(s *snapshot, l *Lock, h hash) {
	sem := &Semaphore{Permits: s.permits, PermitsTTLMS: -2}
	if s.permits != nil {
		sem.PermitsTTLMS = s.permitsPTTL
		if s.permitsPTTL == -1 {
			l.anomaly("the number of permits %s has no TTL", s.keys.Permits)
		}
	}
	if v, ok := h.meta[usedField]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			l.anomaly("the permits held (%s) are %q, not a non-negative integer", usedField, v)
		}
		sem.Used = n
		delete(h.meta, usedField)
	} else if len(h.holds) > 0 {
		l.anomaly("the semaphore's hash has holds but no %s field", usedField)
	}
	permits := map[string]int64{}
	for f, v := range h.meta {
		if id, ok := strings.CutPrefix(f, permitsField); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				l.anomaly("hold %q has %q permits, not a positive integer", id, v)
			}
			permits[id] = n
			delete(h.meta, f)
		}
	}
	for _, f := range sortedKeys(h.meta) {
		l.anomaly("unknown field %q in a semaphore", f)
	}
	leases := map[string]int64{}
	for _, e := range s.leases.entries {
		leases[e.member] = e.score
	}
	var sum int64
	held := map[string]bool{}
	for _, hd := range h.holds {
		held[hd.Hold] = true
		hd.Mode = "permits"
		n, ok := permits[hd.Hold]
		if !ok {
			l.anomaly("hold %q has no permits (no %s%s field)", hd.Hold, permitsField, hd.Hold)
		}
		hd.Permits = n
		sum += n
		if hd.Count != 1 {
			l.anomaly("hold %q has count %d; a semaphore's holds count 1", hd.Hold, hd.Count)
		}
		if end, ok := leases[hd.Hold]; ok {
			hd.LeaseMS = end - s.now
			hd.Expired = hd.LeaseMS <= 0
		} else {
			hd.LeaseMS = -1
			l.anomaly("hold %q has no lease in %s: it never ends", hd.Hold, s.keys.Leases)
		}
		if !hd.Expired {
			sem.Live += n
			l.Held = true
		}
		l.Holders = append(l.Holders, hd)
	}
	for id := range permits {
		if !held[id] {
			l.anomaly("field %s%s without its hold", permitsField, id)
		}
	}
	for _, e := range s.leases.entries {
		if !held[e.member] {
			l.anomaly("lease of %q in %s without its hold", e.member, s.keys.Leases)
		}
	}
	if s.leases.card > 0 && s.leases.pttl == -1 {
		l.anomaly("the leases %s have no TTL", s.keys.Leases)
	}
	if sum != sem.Used {
		l.anomaly("the holds have %d permits but %s says %d", sum, usedField, sem.Used)
	}
	if s.permits != nil {
		free := *s.permits - sem.Live
		sem.Free = &free
	}
	if s.queue.card > 0 || s.timeouts.card > 0 {
		decodeQueue(s, l)
		for i := range l.Queue.Waiters {
			w := &l.Queue.Waiters[i]
			n, id, ok := strings.Cut(w.Owner, ":")
			p, err := strconv.ParseInt(n, 10, 64)
			if !ok || err != nil || p <= 0 {
				l.anomaly("queue entry %q is not PERMITS:ID", w.Owner)
				continue
			}
			w.Owner, w.Permits = id, p
		}
	}
	l.Mode = "free"
	if l.Held {
		l.Mode = "held"
	}
	l.Semaphore = sem
}
