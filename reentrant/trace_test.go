package reentrant_test

import (
	"encoding/json"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// events records what a Trace reports.
type events struct {
	mu       sync.Mutex
	acquired []lockkit.AcquiredInfo
	released []lockkit.ReleasedInfo
	waits    []lockkit.WaitDoneInfo
	started  int
	lost     []lockkit.LostInfo
	rounds   int
}

func (e *events) trace() *lockkit.Trace {
	return &lockkit.Trace{
		WaitStart: func(lockkit.WaitStartInfo) { e.mu.Lock(); e.started++; e.mu.Unlock() },
		WaitDone:  record(e, &e.waits),
		Acquired:  record(e, &e.acquired),
		Released:  record(e, &e.released),
		Lost:      record(e, &e.lost),
		Renewed:   func(lockkit.RenewInfo) { e.mu.Lock(); e.rounds++; e.mu.Unlock() },
	}
}

// record returns a Trace callback that appends what it reports to *list,
// under e.mu.
func record[I any](e *events, list *[]I) func(I) {
	return func(i I) {
		e.mu.Lock()
		*list = append(*list, i)
		e.mu.Unlock()
	}
}

func (e *events) snapshot() events {
	e.mu.Lock()
	defer e.mu.Unlock()
	return events{
		acquired: append([]lockkit.AcquiredInfo(nil), e.acquired...),
		released: append([]lockkit.ReleasedInfo(nil), e.released...),
		waits:    append([]lockkit.WaitDoneInfo(nil), e.waits...),
		started:  e.started,
		lost:     append([]lockkit.LostInfo(nil), e.lost...),
		rounds:   e.rounds,
	}
}

// TestTrace_reports_every_event takes, re-enters, waits for, releases and
// loses holds of each kind, with a lock's own Trace and a Client's, and
// checks what both report.
func TestTrace_reports_every_event(t *testing.T) {
	for _, k := range deadlineKinds {
		t.Run(k.name, func(t *testing.T) {
			rc := redistest.StartServer(t).Client(t)
			var own, client events
			lc := redistest.Lockkit(t, rc, lockkit.WithTrace(client.trace()))
			name := redistest.Unique(t)
			m := k.new(lc, name, lockkit.WithTrace(own.trace()), lockkit.WithWatchdogTimeout(300*time.Millisecond))
			ctx := redistest.Ctx(t, 10*time.Second)

			redistest.MustLock(t, m)
			redistest.MustLock(t, m)
			redistest.MustUnlock(t, m)
			waiter := k.new(lc, name)
			got := redistest.LockAsync(ctx, waiter)
			redistest.Eventually(t, 10*time.Second, "the waiter to start waiting", func() bool {
				return client.snapshot().started == 1
			})
			redistest.MustUnlock(t, m)
			if err := redistest.Receive(t, got, 10*time.Second, "the waiter's Lock"); err != nil {
				t.Fatal(err)
			}
			redistest.MustUnlock(t, waiter)

			o := own.snapshot()
			if len(o.acquired) != 2 || o.acquired[0].Reentry || !o.acquired[1].Reentry || o.acquired[0].Token == 0 ||
				o.acquired[0].Token != o.acquired[1].Token || o.acquired[0].Lock.Name != name || o.acquired[0].Lock.Kind != k.name {
				t.Errorf("own Acquired = %+v; want a fresh hold, then its re-entry", o.acquired)
			}
			if len(o.released) != 2 || o.released[0].Ended || !o.released[1].Ended || o.released[1].Err != nil {
				t.Errorf("own Released = %+v; want one partial, then the end", o.released)
			}
			if o.started != 0 || len(o.waits) != 0 {
				t.Errorf("own waits = %d started, %+v; the lock never waited", o.started, o.waits)
			}
			c := client.snapshot()
			if len(c.acquired) != 3 || !c.acquired[2].Contended || c.acquired[2].Token <= c.acquired[0].Token {
				t.Errorf("Client's Acquired = %+v; want m's two, then the waiter's contended hold with a larger token", c.acquired)
			}
			if len(c.waits) != 1 || c.waits[0].Err != nil || c.waits[0].Waited <= 0 {
				t.Errorf("Client's WaitDone = %+v; want one acquired wait", c.waits)
			}
			if len(c.released) != 3 {
				t.Errorf("Client's Released = %+v; want 3", c.released)
			}

			// A hold whose keys vanish is lost, and the renewals say so.
			redistest.MustLock(t, m)
			if err := rc.Del(ctx, "lockkit:{"+name+"}").Err(); err != nil {
				t.Fatal(err)
			}
			redistest.Receive(t, m.Lost(), 10*time.Second, "the lost signal")
			redistest.Eventually(t, 10*time.Second, "the loss to be reported", func() bool {
				return len(own.snapshot().lost) == 1
			})
			l := own.snapshot().lost[0]
			if !errors.Is(l.Err, lockkit.ErrLost) || l.Token == 0 {
				t.Errorf("Lost = %+v; want ErrLost and the hold's token", l)
			}
			// The round trip that found the hold gone is reported once its
			// losses are.
			redistest.Eventually(t, 10*time.Second, "the renewal round trip to be reported", func() bool {
				return client.snapshot().rounds > 0
			})
			redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrLost)
		})
	}
}

// TestWithHolderInfo_stores_who_holds_beside_the_hold: a fresh hold gets
// its host, pid and start beside it; the field goes with the hold.
func TestWithHolderInfo_stores_who_holds_beside_the_hold(t *testing.T) {
	for _, k := range deadlineKinds {
		t.Run(k.name, func(t *testing.T) {
			rc := redistest.StartServer(t).Client(t)
			name := redistest.Unique(t)
			m := k.new(redistest.Lockkit(t, rc), name, lockkit.WithHolderInfo(), lockkit.WithOwner("job-1"))
			ctx := redistest.Ctx(t, 10*time.Second)
			before := time.Now().Add(-time.Second)
			redistest.MustLock(t, m)
			raw, err := rc.HGet(ctx, "lockkit:{"+name+"}", ":m:job-1").Result()
			if err != nil {
				t.Fatalf("holder info: %v", err)
			}
			var info struct {
				Host  string    `json:"host"`
				PID   int       `json:"pid"`
				Since time.Time `json:"since"`
			}
			if err := json.Unmarshal([]byte(raw), &info); err != nil {
				t.Fatal(err)
			}
			host, _ := os.Hostname()
			if info.Host != host || info.PID != os.Getpid() || info.Since.Before(before) || info.Since.After(time.Now()) {
				t.Fatalf("holder info %+v; want host %q, pid %d, since about now", info, host, os.Getpid())
			}
			redistest.MustLock(t, m)
			redistest.MustUnlock(t, m)
			redistest.MustUnlock(t, m)
			redistest.AssertClean(t, rc, name)
		})
	}
}
