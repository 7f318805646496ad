package faultkit

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

// subscribedRE finds, in a CLIENT LIST line, the number of channels the
// connection is subscribed to, classic or shard.
var subscribedRE = regexp.MustCompile(` s?sub=(\d+)`)

// Subscribed waits until the first server of e has n pub/sub connections
// subscribed to a channel.
func (e *Env) Subscribed(t *testing.T, n int) {
	t.Helper()
	redistest.Eventually(t, CallBound, strconv.Itoa(n)+" subscribed pub/sub connections", func() bool {
		list, err := e.Admins[0].ClientList(redistest.Ctx(t, CallBound)).Result()
		if err != nil {
			t.Fatal(err)
		}
		subscribed := 0
		for _, m := range subscribedRE.FindAllStringSubmatch(list, -1) {
			if k, _ := strconv.Atoi(m[1]); k > 0 {
				subscribed++
			}
		}
		return subscribed >= n
	})
}

// WaitersSubscribed waits until the first server of e has a pub/sub
// connection subscribed to a channel for each side that waits on one,
// while a holder of side a holds and a waiter of each side waits: both,
// but in cohort mode, whose waiter on the holder's side waits in memory.
// A Lock counts as waiting (Side.Waiting) before its Client subscribed.
func (e *Env) WaitersSubscribed(t *testing.T) {
	t.Helper()
	want := 2
	if e.K.Cohort {
		want = 1
	}
	e.Subscribed(t, want)
}
