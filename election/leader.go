package election

import (
	"context"
	"strconv"
	"time"

	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
)

// Leader is who leads an election: the value its leader campaigned with,
// and its term. Terms are the fencing tokens of the leadership lock: each
// new leadership has a larger term than every one before it, across
// clients (and across a Redis restart that lost the data, as long as the
// server's clock does not go back). The zero Leader (Term 0) means that
// nobody leads.
type Leader struct {
	Value string
	Term  int64
}

// Leader returns the current leader: its value and term, or the zero
// Leader when nobody leads (or, for a moment after winning, the new leader
// has not proclaimed its value yet). One round trip.
func (e *Election) Leader(ctx context.Context) (Leader, error) {
	if err := e.base().Check(ctx); err != nil {
		return Leader{}, err
	}
	l, _, err := e.read(ctx, "leader")
	return l, err
}

// read returns the current leader and how long it may lead without a word
// to the observers (its remaining lease; negative: no bound); op names the
// operation in errors.
func (e *Election) read(ctx context.Context, op string) (Leader, time.Duration, error) {
	cfg := &e.b.Cfg
	res, err := core.CallUntilClosed(ctx, cfg.Client, func(ctx context.Context) ([]any, error) {
		return leaderScript.Run(ctx, cfg.Client.Redis(), []string{cfg.Keys.Base}, config.Election).Slice()
	}, nil)
	if err != nil {
		return Leader{}, 0, core.Op(op, cfg.Name, err)
	}
	if len(res) == 0 {
		return Leader{}, -1, nil
	}
	ts, _ := res[0].(string)
	term, terr := strconv.ParseInt(ts, 10, 64)
	pttl, ok := res[1].(int64)
	if terr != nil || !ok {
		return Leader{}, 0, core.Op(op, cfg.Name, core.ErrReply)
	}
	wait := time.Duration(-1)
	if pttl >= 0 {
		wait = time.Duration(pttl) * time.Millisecond
	}
	if len(res) < 3 {
		return Leader{}, wait, nil
	}
	v, _ := res[2].(string)
	return Leader{Value: v, Term: term}, wait, nil
}
