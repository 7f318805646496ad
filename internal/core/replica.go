package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
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
// that acknowledged the marker has the hold, taken before it. ROLE, sent
// with the marker, tells whether the master has any replica connected;
// with none, nothing is waited for (see lockkit.WithReplicaAck).

// errNoMaster reports a client whose master for a key cannot be named.
var errNoMaster = errors.New("WithReplicaAck needs a *redis.Client (plain or failover) or a *redis.ClusterClient")

// confirm asks the replicas to acknowledge the fresh hold that the acquire
// with attempt id just took, when the lock wants it. When they do not (too
// few, an error, ctx ending), it undoes that acquire and returns why;
// the lock is then as the caller left it, unless the undo failed too (the
// hold then ends with its lease). r.op held.
func (r *Holder) confirm(ctx context.Context, id string) error {
	if r.cfg.ReplicaAcks == 0 {
		return nil
	}
	err := r.replicaAck(ctx)
	if err == nil {
		return nil
	}
	if r.cfg.OwnOwner {
		var token, count int64
		if h := r.Live(); h != nil {
			token, count = h.Token, h.Count
		}
		r.undo(token, count)
	} else {
		r.undo(id, -1)
	}
	return err
}

// replicaAck waits until ReplicaAcks replicas of the lock's master have
// every write the master took so far, for at most ReplicaAckTimeout, and
// returns an error matching ErrReplicaAck when fewer did. A master with no
// replica connected is not waited for.
func (r *Holder) replicaAck(ctx context.Context) error {
	c := r.cfg
	master, err := masterOf(ctx, c.Client.Redis(), c.Keys.Base)
	if err != nil {
		return err
	}
	conn := master.Conn()
	defer conn.Close()
	var role *redis.Cmd
	if _, err := conn.Pipelined(ctx, func(p redis.Pipeliner) error {
		role = p.Do(ctx, "role")
		p.IncrBy(ctx, c.Keys.Fence, 0)
		return nil
	}); err != nil {
		return err
	}
	connected, err := connectedReplicas(role)
	if err != nil || connected == 0 {
		return err
	}
	n, timeout := c.ReplicaAcks, c.ReplicaAckTimeout
	acked, err := conn.Wait(ctx, n, timeout).Result()
	if err != nil {
		return err
	}
	if int(acked) < n {
		return fmt.Errorf("%w: %d of %d replicas acknowledged within %v (%d connected)",
			lockkit.ErrReplicaAck, acked, n, timeout, connected)
	}
	return nil
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

// connectedReplicas returns how many replicas the ROLE reply of a master
// lists: ["master", offset, [[ip, port, offset], ...]].
func connectedReplicas(role *redis.Cmd) (int, error) {
	v, err := role.Slice()
	if err != nil {
		return 0, err
	}
	if len(v) < 3 || v[0] != "master" {
		return 0, fmt.Errorf("%w: ROLE replied %v, not a master's reply", ErrReply, v)
	}
	replicas, ok := v[2].([]any)
	if !ok {
		return 0, fmt.Errorf("%w: ROLE replied %v", ErrReply, v)
	}
	return len(replicas), nil
}
