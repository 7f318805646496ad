package core

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/slotmap"
)

// Replica acknowledgement (lockkit.WithReplicaAck): a fresh hold is
// confirmed by the master's replicas before the acquire that took it
// counts as done.
//
// Redis WAIT waits for the writes of its own connection only, and the
// acquire ran on whichever connection the client picked. So confirm
// writes a marker that changes nothing (INCRBY of the fencing counter by
// 0, which is still replicated) on a connection of its own to the lock's
// master and WAITs there: the replication stream is ordered, so a replica
// that acknowledged the marker has the hold, taken before it.
//
// INFO replication, sent with the marker, tells whether there is a
// replica to wait for. A master with no replica attached (connected, or
// still syncing) and no replication backlog has had none for
// repl-backlog-ttl, or never: nothing is waited for (see
// lockkit.WithReplicaAck). Any other master is waited for, even with no
// replica attached: its replicas may be cut off, restarting, or promoted
// away by a failover that this master has not heard of yet, and each of
// those could take over without the hold. ROLE would not do: it lists
// only the replicas that are online, not one still syncing, whose
// acknowledgement WAIT does wait for.

// errNoMaster reports a client whose master for a key cannot be named.
var errNoMaster = errors.New("WithReplicaAck needs a *redis.Client (plain or failover) or a *redis.ClusterClient")

// confirm asks the replicas to acknowledge the fresh hold (or the
// re-entry of a fixed lease) that the acquire with attempt id just took,
// when the lock wants it. When they do not (too few, an error, ctx
// ending), or the Client was closed while they were waited for, it undoes
// that acquire and returns why; the lock is then as the caller left it,
// or soon is (an undo that gets no answer is asked again in the
// background, see undoLater). r.op held.
func (r *Holder) confirm(ctx context.Context, id string) error {
	if r.cfg.ReplicaAcks == 0 {
		return nil
	}
	err := r.replicaAck(ctx)
	if cerr := r.cfg.Client.Err(); cerr != nil {
		// Closed meanwhile: its watchdog would report the hold lost at
		// once. Give back what the acquire took, as attempt does.
		err = cerr
	}
	if err == nil {
		return nil
	}
	var answered bool
	if r.cfg.OwnOwner {
		var token, count int64
		if h := r.Live(); h != nil {
			token, count = h.Token, h.Count
		}
		answered = r.undo(token, count, id, 0)
	} else {
		answered = r.undo(id, -1, id, 0)
	}
	if !answered {
		r.cfg.Client.Go(func() { r.undoLater(id) })
	}
	return err
}

// replicaAck waits until ReplicaAcks replicas of the lock's master have
// every write the master took so far, for at most ReplicaAckTimeout, and
// returns an error matching ErrReplicaAck when fewer did. A master that
// has had no replica for a long while (see above) is not waited for. It
// returns when ctx ends, with an error matching ctx.Err(): go-redis would
// not end a WAIT then, so the WAIT runs out in the background (within
// ctx's deadline, if it has one).
func (r *Holder) replicaAck(ctx context.Context) error {
	n, timeout := r.cfg.ReplicaAcks, r.cfg.ReplicaAckTimeout
	if d, ok := ctx.Deadline(); ok {
		// At least 1 ms: WAIT 0 waits forever.
		timeout = max(min(timeout, time.Until(d)), time.Millisecond)
	}
	got, err := Call(ctx, r.cfg.Client, func(ctx context.Context) (acks, error) {
		return r.waitReplicas(ctx, n, timeout)
	}, nil)
	if err != nil || got.acked >= n {
		return err
	}
	return fmt.Errorf("%w: %d of %d replicas acknowledged within %v (%d connected)",
		lockkit.ErrReplicaAck, got.acked, n, timeout, got.connected)
}

// acks is what a master said of its replicas: how many acknowledged, and
// how many were attached.
type acks struct{ acked, connected int }

// movedTries bounds how many times waitReplicas asks again after a MOVED,
// and movedWait how long it waits each time for the Cluster client's map
// to follow it.
const (
	movedTries = 3
	movedWait  = time.Second
)

// waitReplicas asks the lock's master for n acknowledgements within
// timeout. A master with no replica to wait for counts as n. On a Cluster
// the master is the one the client's map names, which may be out of date
// (the acquire itself followed a MOVED: the slot moved, or its master
// failed over): where that node answers MOVED, waitReplicas waits for the
// map to follow and asks the master it names.
func (r *Holder) waitReplicas(ctx context.Context, n int, timeout time.Duration) (acks, error) {
	rc, key := r.cfg.Client.Redis(), r.cfg.Keys.Base
	for try := 1; ; try++ {
		got, err := r.waitReplicasOnce(ctx, n, timeout)
		if try == movedTries || !slotmap.Follow(ctx, rc, key, err, movedWait) {
			return got, err
		}
	}
}

// waitReplicasOnce is one try of waitReplicas, at the master the client's
// map names.
func (r *Holder) waitReplicasOnce(ctx context.Context, n int, timeout time.Duration) (acks, error) {
	c := r.cfg
	master, err := masterOf(ctx, c.Client.Redis(), c.Keys.Base)
	if err != nil {
		return acks{}, err
	}
	conn := master.Conn()
	defer conn.Close()
	var info *redis.InfoCmd
	if _, err := conn.Pipelined(ctx, func(p redis.Pipeliner) error {
		info = p.InfoMap(ctx, "replication")
		p.IncrBy(ctx, c.Keys.Fence, 0)
		return nil
	}); err != nil {
		return acks{}, err
	}
	connected, backlog, err := replication(info.Val()["Replication"])
	if err != nil || (connected == 0 && !backlog) {
		return acks{n, connected}, err
	}
	acked, err := conn.Wait(ctx, n, timeout).Result()
	return acks{int(acked), connected}, err
}

// masterOf returns the client of the master that keeps key: rc itself for
// a plain or failover client, the key's master for a cluster client.
func masterOf(ctx context.Context, rc redis.UniversalClient, key string) (*redis.Client, error) {
	switch rc := rc.(type) {
	case *redis.Client:
		return rc, nil
	case *redis.ClusterClient:
		return rc.MasterForKey(ctx, key)
	}
	return nil, fmt.Errorf("%w (got %T)", errNoMaster, rc)
}

// replication reads the fields of a master's INFO replication section:
// how many replicas it has attached (connected_slaves, which counts those
// still syncing) and whether it keeps a replication backlog
// (repl_backlog_active), which it does from its first replica on until it
// has had none for repl-backlog-ttl.
func replication(fields map[string]string) (connected int, backlog bool, err error) {
	if role := fields["role"]; role != "master" {
		return 0, false, fmt.Errorf("%w: INFO replication says role %q, not a master's", ErrReply, role)
	}
	connected, err = strconv.Atoi(fields["connected_slaves"])
	if err != nil {
		return 0, false, fmt.Errorf("%w: INFO replication: connected_slaves: %v", ErrReply, err)
	}
	return connected, fields["repl_backlog_active"] == "1", nil
}
