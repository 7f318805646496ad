package main

import "strings"

// Fields and members of a read-write lock besides its holds (rwlock's
// common.lua).
const (
	modeField     = ":mode"
	claimField    = ":claim"
	readTurnField = ":readturn"
	handoff       = ":handoff"
)

// decodeRW decodes a read-write lock (rwlock/common.lua): holds OWNER:w
// and OWNER:r in the hash, each with its own lease in the sorted set
// PREFIX:{NAME}:leases (score = deadline, server ms); ':mode' says whether
// a write hold exists, ':claim' that a refused writer claimed the lock and
// ':readturn' until when, after a downgrade, intents hold back no reader.
// Only holds whose lease is live count, as rwlock's state.lua counts them.
func decodeRW(s *snapshot, l *Lock, h hash) {
	lease := map[string]int64{}
	for _, e := range s.leases.entries {
		lease[e.member] = e.score
	}
	inHash := map[string]bool{}
	writes, liveWrite, liveReadOthers := 0, "", map[string]bool{}
	for _, hd := range h.holds {
		inHash[hd.Hold] = true
		switch {
		case strings.HasSuffix(hd.Hold, ":w"):
			hd.Mode, hd.Owner = "write", strings.TrimSuffix(hd.Hold, ":w")
			writes++
		case strings.HasSuffix(hd.Hold, ":r"):
			hd.Mode, hd.Owner = "read", strings.TrimSuffix(hd.Hold, ":r")
		default:
			l.anomaly("hold %q is neither OWNER:w nor OWNER:r", hd.Hold)
		}
		if at, ok := lease[hd.Hold]; ok {
			hd.LeaseMS = at - s.now
			hd.Expired = hd.LeaseMS <= 0
		} else {
			hd.LeaseMS = -1
			if s.leases.card <= int64(len(s.leases.entries)) {
				l.anomaly("hold %q has no lease in %s", hd.Hold, s.keys.Leases)
			}
		}
		if !hd.Expired {
			l.Held = true
			switch hd.Mode {
			case "write":
				liveWrite = hd.Owner
			case "read":
				liveReadOthers[hd.Owner] = true
			}
		}
		l.Holders = append(l.Holders, hd)
	}
	for _, e := range s.leases.entries {
		if !inHash[e.member] {
			l.anomaly("lease of %q without its hold", e.member)
		}
	}
	mode := h.meta[modeField]
	switch {
	case writes > 1:
		l.anomaly("%d write holds", writes)
	case writes == 1 && mode != "write":
		l.anomaly("a write hold, but ':mode' is %q", mode)
	case writes == 0 && mode == "write":
		l.anomaly("':mode' is \"write\" without a write hold")
	}
	delete(liveReadOthers, liveWrite)
	if liveWrite != "" && len(liveReadOthers) > 0 {
		l.anomaly("a write hold of %q together with read holds of other owners", liveWrite)
	}
	for _, f := range sortedKeys(h.meta) {
		if f != modeField && f != claimField && f != readTurnField {
			l.anomaly("unknown field %q", f)
		}
	}
	if s.leases.card > 0 && s.leases.pttl == -1 {
		l.anomaly("the leases %s have no TTL", s.keys.Leases)
	}
	switch {
	case liveWrite != "":
		l.Mode = "write"
	case l.Held:
		l.Mode = "read"
	}
	decodeIntents(s, l)
	_, l.Writers.Claimed = h.meta[claimField]
}

// decodeIntents decodes a read-write lock's waiting writers: the sorted
// set PREFIX:{NAME}:writers of OWNER:w scored by the intent's deadline,
// and its member ':handoff', which reserves a freed lock for them.
func decodeIntents(s *snapshot, l *Lock) {
	w := &Writers{Intents: []Intent{}}
	for _, e := range s.writers.entries {
		left := e.score - s.now
		if e.member == handoff {
			if left > 0 {
				w.HandoffLeftMS = &left
			}
			continue
		}
		in := Intent{Owner: strings.TrimSuffix(e.member, ":w"), DeadlineAtMS: e.score, LeftMS: left, Expired: left <= 0}
		if !in.Expired {
			w.Waiting++
		}
		w.Intents = append(w.Intents, in)
	}
	if s.writers.card > 0 && s.writers.pttl == -1 {
		l.anomaly("the intents %s have no TTL", s.keys.Writers)
	}
	l.Writers = w
}
