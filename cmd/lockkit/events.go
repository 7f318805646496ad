package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Event is one change watch prints: a JSON object per line with -o json.
type Event struct {
	// Time is the local time the change was seen (RFC 3339, ms).
	Time string `json:"time"`
	// Event is what happened:
	//   state       the lock as watch starts (Lock holds it)
	//   acquire     a hold began (Owner, Mode, Count, Token)
	//   release     a hold ended: released, expired or forced (Owner,
	//               Mode, Token, and Count, its last count)
	//   count       a hold's count changed: a re-entry or a partial
	//               unlock (Count, and Previous)
	//   join, leave an owner joined or left a fair queue
	//   intent, intent_end
	//               a read-write lock's writer began or stopped waiting
	//   countdown   a latch was counted down (Count, the count left,
	//               and Previous)
	//   open        a latch opened (Previous, its count before)
	//   leader      an election's leader proclaimed its value (Owner,
	//               Value, and Token, the term)
	//   publish     a message on a wake-up channel (Channel, Message:
	//               "1" wakes one waiter per process, "*" every waiter,
	//               "s100" tells the process next in line that the lock
	//               is kept 100 ms for another, "s200" and "s300" the
	//               two after it when to try if those ahead do not)
	Event    string `json:"event"`
	Name     string `json:"name"`
	Owner    string `json:"owner,omitempty"`
	Mode     string `json:"mode,omitempty"`
	Count    int64  `json:"count,omitempty"`
	Previous int64  `json:"previous,omitempty"`
	Token    int64  `json:"token,omitempty"`
	Channel  string `json:"channel,omitempty"`
	Message  string `json:"message,omitempty"`
	Value    string `json:"value,omitempty"`
	Lock     *Entry `json:"lock,omitempty"`
}

// changes returns the events that lead from state a to state b, in order:
// releases, then acquires and counts, then queue and intent changes.
func changes(a, b *Lock) []Event {
	var evs []Event
	before := holdsByID(a)
	after := holdsByID(b)
	for _, h := range a.Holders {
		if n, ok := after[h.Hold]; !ok || n.Token != h.Token {
			evs = append(evs, Event{Event: "release", Owner: h.Owner, Mode: h.Mode, Count: h.Count, Token: h.Token})
		}
	}
	for _, h := range b.Holders {
		p, ok := before[h.Hold]
		switch {
		case !ok || p.Token != h.Token:
			evs = append(evs, Event{Event: "acquire", Owner: h.Owner, Mode: h.Mode, Count: h.Count, Token: h.Token})
		case p.Count != h.Count:
			evs = append(evs, Event{Event: "count", Owner: h.Owner, Mode: h.Mode, Count: h.Count, Previous: p.Count, Token: h.Token})
		}
	}
	evs = append(evs, members("join", "leave", queued(a), queued(b))...)
	evs = append(evs, members("intent", "intent_end", intents(a), intents(b))...)
	if la, lb := a.Latch, b.Latch; lb != nil && (la == nil || la.Count != lb.Count || la.Open != lb.Open) {
		// A latch made since the last read: its count-downs since it was
		// made are recorded, so it was made with their number more.
		prev := lb.Count + int64(lb.CountDowns)
		if la != nil {
			prev = la.Count
		}
		ev := Event{Event: "countdown", Count: lb.Count, Previous: prev}
		if lb.Open {
			ev.Event = "open"
		}
		evs = append(evs, ev)
	}
	if ea, eb := a.Election, b.Election; eb != nil && eb.Value != nil &&
		(ea == nil || ea.Value == nil || ea.Term != eb.Term || *ea.Value != *eb.Value) {
		evs = append(evs, Event{Event: "leader", Owner: eb.Leader, Token: eb.Term, Value: *eb.Value})
	}
	return evs
}

// holdsByID indexes l's holds by hash field.
func holdsByID(l *Lock) map[string]Holder {
	m := map[string]Holder{}
	for _, h := range l.Holders {
		m[h.Hold] = h
	}
	return m
}

// queued lists the owners in l's fair queue.
func queued(l *Lock) []string {
	var out []string
	if l.Queue != nil {
		for _, w := range l.Queue.Waiters {
			out = append(out, w.Owner)
		}
	}
	return out
}

// intents lists the owners of l's live writer intents.
func intents(l *Lock) []string {
	var out []string
	if l.Writers != nil {
		for _, in := range l.Writers.Intents {
			if !in.Expired {
				out = append(out, in.Owner)
			}
		}
	}
	return out
}

// members returns an added event per owner in b not in a, and a removed
// event per owner in a not in b.
func members(added, removed string, a, b []string) []Event {
	in := func(s []string, x string) bool {
		for _, y := range s {
			if y == x {
				return true
			}
		}
		return false
	}
	var evs []Event
	for _, o := range a {
		if !in(b, o) {
			evs = append(evs, Event{Event: removed, Owner: o})
		}
	}
	for _, o := range b {
		if !in(a, o) {
			evs = append(evs, Event{Event: added, Owner: o})
		}
	}
	return evs
}

// writeEvent prints ev as a line of text.
func writeEvent(w io.Writer, ev Event) error {
	t, _ := time.Parse(time.RFC3339Nano, ev.Time)
	parts := []string{t.Format("15:04:05.000"), fmt.Sprintf("%-10s", ev.Event)}
	switch ev.Event {
	case "state":
		s := ev.Lock
		holders := []string{}
		for _, h := range s.Holders {
			holders = append(holders, fmt.Sprintf("%s token %d", holdLabel(h), h.Token))
		}
		parts = append(parts, fmt.Sprintf("%s: %s %s %s", shown(ev.Name), orDash(s.Kind), s.Mode, strings.Join(holders, ", ")))
	case "acquire", "release", "count":
		parts = append(parts, shown(ev.Owner), ev.Mode, fmt.Sprintf("count %d token %d", ev.Count, ev.Token))
		if ev.Event == "count" {
			parts = append(parts, fmt.Sprintf("(was %d)", ev.Previous))
		}
	case "publish":
		parts = append(parts, shown(ev.Channel), fmt.Sprintf("%q", ev.Message))
	case "countdown":
		parts = append(parts, fmt.Sprintf("count %d (was %d)", ev.Count, ev.Previous))
	case "open":
		parts = append(parts, fmt.Sprintf("count 0 (was %d)", ev.Previous))
	case "leader":
		parts = append(parts, shown(ev.Owner), fmt.Sprintf("value %q term %d", ev.Value, ev.Token))
	default:
		parts = append(parts, shown(ev.Owner))
	}
	_, err := fmt.Fprintln(w, strings.TrimRight(strings.Join(parts, " "), " "))
	return err
}
