package main

import "strings"

// valueField prefixes the field of an election's hash that holds the
// leader's value: ':v:' + its hold id (election/holder.lua).
const valueField = ":v:"

// decodeElection decodes a leader election (election/holder.lua): a hash
// lock of kind 'election' whose one hold is the leader's, its token the
// term and the hash's PTTL the leader's lease, and beside the hold the
// field ':v:' + hold id = the value the leader proclaimed (absent for a
// moment after it won).
func decodeElection(s *snapshot, l *Lock, h hash) {
	values := map[string]string{}
	for f, v := range h.meta {
		if id, ok := strings.CutPrefix(f, valueField); ok {
			values[id] = v
			delete(h.meta, f)
		}
	}
	decodeExclusive(s, l, h)
	e := &Election{LeaseMS: s.hashPTTL}
	held := map[string]bool{}
	for _, hd := range h.holds {
		held[hd.Hold] = true
		if hd.Count > 1 {
			l.anomaly("the leader's hold %q has count %d: a leader takes its hold once", hd.Hold, hd.Count)
		}
	}
	if len(h.holds) > 0 {
		hd := h.holds[0]
		e.Leader, e.Term = hd.Owner, hd.Token
		if v, ok := values[hd.Hold]; ok {
			e.Value = &v
		}
	}
	for _, id := range sortedKeys(values) {
		if !held[id] {
			l.anomaly("field %s%s without its hold", valueField, id)
		}
	}
	if e.Leader == "" {
		e.LeaseMS = -2
	}
	l.Election = e
}
