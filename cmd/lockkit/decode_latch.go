package main

import (
	"strconv"
	"strings"

	"github.com/lockkit/lockkit/latch"
)

// Fields of a latch's hash (latch/countdown.lua) besides ':kind'.
const (
	countField     = "count"
	countDownField = ":d:"
)

// decodeLatch decodes a countdown latch (latch/countdown.lua): the hash
// PREFIX:{NAME} with 'count' = the count left and ':d:ID' for each
// count-down made while it is closed; the count-down that opens it keeps
// only 'count' = 0. Every count-down sets the hash's expiry, so its PTTL
// is when the latch is forgotten. A latch is not a lock: it has no holds,
// and its mode is "open" or "closed".
func decodeLatch(s *snapshot, l *Lock) {
	lt := &Latch{}
	var unknown []string
	seen := false
	for _, f := range s.fields {
		switch {
		case f.field == kindField:
		case f.field == countField:
			seen = true
			n, err := strconv.ParseInt(f.value, 10, 64)
			if err != nil || n < 0 {
				l.anomaly("the latch's count is %q, not a non-negative integer", f.value)
			}
			lt.Count = n
		case strings.HasPrefix(f.field, countDownField):
			lt.CountDowns++
		default:
			unknown = append(unknown, f.field)
		}
	}
	for _, f := range unknown {
		l.anomaly("unknown field %q in a latch", f)
	}
	if !seen {
		l.anomaly("the latch has no 'count' field")
	}
	lt.Open = seen && lt.Count == 0
	switch {
	case lt.Open && lt.CountDowns > 0:
		l.anomaly("the latch is open but keeps %d count-down ids, which its opening drops", lt.CountDowns)
	case lt.Count+int64(lt.CountDowns) > latch.MaxCount:
		l.anomaly("the latch's count left (%d) and count-downs made (%d) add up to more than %d, the largest count", lt.Count, lt.CountDowns, latch.MaxCount)
	}
	if s.hashPTTL == -1 {
		l.anomaly("the hash %s has no TTL: the latch is never forgotten", l.Key)
	}
	l.Mode = "closed"
	if lt.Open {
		l.Mode = "open"
	}
	l.Latch = lt
}
