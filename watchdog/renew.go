package watchdog

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/slotmap"
)

// renew sends batch, one pipeline per shard, all at once, and records
// each reply as it comes: a shard that is slow or silent delays only the
// holds it serves. It returns when every pipeline has.
func (w *Watchdog) renew(batch []renewal) {
	defer func() {
		w.mu.Lock()
		if w.sending--; w.sending == 0 {
			w.cond.Broadcast()
		}
		w.mu.Unlock()
	}()
	shards := w.shards(batch)
	if len(shards) == 1 {
		w.renewShard(shards[0])
		return
	}
	var wg sync.WaitGroup
	for _, s := range shards {
		wg.Go(func() { w.renewShard(s) })
	}
	wg.Wait()
}

// renewShard sends the renewals of one shard in one pipeline and records
// the outcome.
func (w *Watchdog) renewShard(shard []renewal) {
	timeout := maxCallTimeout
	for _, r := range shard {
		timeout = min(timeout, max(r.h.lease.TTL/3, 10*time.Millisecond))
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	sent := time.Now()
	results := w.send(ctx, shard)
	w.record(shard, sent, results)
}

// record applies the replies to the renewals of shard, sent at sent, to
// their holds, reports the holds found gone, and wakes the goroutine to
// schedule what comes next. A reply for a hold stopped or given up since it
// was sent is ignored; one for a suspended hold only extends its lease.
func (w *Watchdog) record(shard []renewal, sent time.Time, results []result) {
	var lost []func()
	round := Round{Holds: len(shard)}
	w.mu.Lock()
	now := time.Now()
	round.Took = now.Sub(sent)
	for i, r := range shard {
		h := r.h
		renewed, err := results[i].renewed, results[i].err
		if err != nil && round.Err == nil {
			// The round trip failed, also for a hold given up meanwhile.
			round.Err = err
		}
		if h.flight != r.flight {
			continue
		}
		h.flight = 0
		switch {
		case err == nil && renewed:
			round.Renewed++
		case err == nil:
			round.Gone++
		default:
			round.Retry++
		}
		switch {
		case err == nil && renewed && h.lease.Fixed:
			// Verified, not extended: verified again a third of the lease on.
			h.lastErr = nil
			h.due = sent.Add(h.lease.TTL / 3)
		case err == nil && renewed:
			// Also while suspended: the server did extend the lease.
			h.lastErr = nil
			h.extend(sent)
		case h.state != active:
			// Suspended: the hold may be gone by its release.
		case err == nil:
			// Gone: report it now rather than at its deadline.
			if f := h.lose(nil); f != nil {
				lost = append(lost, f)
			}
		default:
			// Retry soon; the deadline reports the hold lost if no retry
			// succeeds in time.
			h.lastErr = err
			h.due = now.Add(min(h.lease.TTL/10, time.Second))
		}
	}
	w.mu.Unlock()
	w.wake()
	for _, f := range lost {
		f()
	}
	if w.onRound != nil {
		w.onRound(round)
	}
}

type result struct {
	renewed bool
	err     error
}

// send runs the renew scripts of shard in one pipeline and, for those the
// server does not know (NOSCRIPT), sends them once more as EVAL, which
// loads them there: [redis.Script.Run] cannot fall back inside a
// pipeline, and SCRIPT LOAD on a Cluster would wait for every node.
func (w *Watchdog) send(ctx context.Context, shard []renewal) []result {
	results := make([]result, len(shard))
	todo := make([]int, len(shard))
	for i := range todo {
		todo[i] = i
	}
	for try := 0; try < 2 && len(todo) > 0; try++ {
		pipe := w.client.Pipeline()
		cmds := make([]*redis.Cmd, len(todo))
		for j, i := range todo {
			l := shard[i].h.lease // set at Start, never changed since
			if try == 0 {
				cmds[j] = l.Script.EvalSha(ctx, pipe, l.Keys, l.Args...)
			} else {
				cmds[j] = l.Script.Eval(ctx, pipe, l.Keys, l.Args...)
			}
		}
		_, _ = pipe.Exec(ctx)
		var again []int
		for j, i := range todo {
			n, err := cmds[j].Int64()
			slotmap.Check(w.client, err)
			if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") && try == 0 {
				again = append(again, i)
				continue
			}
			results[i] = result{renewed: err == nil && n == 1, err: err}
		}
		todo = again
	}
	return results
}
