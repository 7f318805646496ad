package main

// decodeQueue decodes a fair lock's queue (fair/queue.lua): the sorted set
// PREFIX:{NAME}:waiters of owner ids scored by arrival number, and
// PREFIX:{NAME}:timeouts of the same ids scored by deadline (server ms).
// An entry whose deadline has passed is dead and evicted by the next
// script; an entry without a deadline can never be refreshed.
func decodeQueue(s *snapshot, l *Lock) {
	q := &Queue{Length: s.queue.card, Deadlines: s.timeouts.card, Waiters: []Waiter{}}
	for i, e := range s.queue.entries {
		w := Waiter{Owner: e.member, Arrival: e.score}
		if i < len(s.deadline) && s.deadline[i] != nil {
			at := *s.deadline[i]
			left := at - s.now
			w.DeadlineAtMS, w.LeftMS, w.Expired = &at, &left, left <= 0
		} else {
			l.anomaly("queue entry %q has no deadline in %s", e.member, s.keys.Timeouts)
		}
		q.Waiters = append(q.Waiters, w)
	}
	if q.Length != q.Deadlines {
		l.anomaly("the queue has %d entries but %d deadlines", q.Length, q.Deadlines)
	}
	if s.queue.card > 0 && s.queue.pttl == -1 {
		l.anomaly("the queue %s has no TTL", s.keys.Waiters)
	}
	if s.timeouts.card > 0 && s.timeouts.pttl == -1 {
		l.anomaly("the deadlines %s have no TTL", s.keys.Timeouts)
	}
	l.Queue = q
}
