package main

import (
	"context"
	"errors"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/nodes"
)

// wakeChannels returns the channels on which l's waiters sleep, with who
// sleeps there: a reentrant lock's waiters on PREFIX:{NAME}:ch (on a
// Cluster) or on their process's own PREFIX:{NAME}:ch:ID, and so do an
// election's candidates, whose observers sleep on PREFIX:{NAME}:observe;
// a latch's waiters on PREFIX:{NAME}:ch; a read-write lock's readers on
// PREFIX:{NAME}:ch and its writers on PREFIX:{NAME}:wch (on a Cluster) or
// on their process's own PREFIX:{NAME}:wch:ID; and each fair
// waiter on its own PREFIX:{NAME}:ch:OWNER. Spin locks and RedLock nodes
// publish nothing: their waiters retry by backoff. For a free lock, whose
// kind is unknown, the shared channels of every kind are asked (a vacant
// election's observers, and the waiters of a latch nobody counted down
// yet, are there).
func wakeChannels(k lockKeys, l *Lock) []Subscribers {
	var subs []Subscribers
	add := func(ch, role string) { subs = append(subs, Subscribers{Channel: ch, Role: role}) }
	switch l.Kind {
	case kindReentrant, kindLatch:
		add(k.Channel, "waiters")
	case kindElection:
		add(k.Channel, "candidates")
		add(k.Observers, "observers")
	case kindRW:
		add(k.Channel, "readers")
		add(k.WriterChannel, "writers")
	case "":
		add(k.Channel, "waiters")
		add(k.WriterChannel, "writers")
		add(k.Observers, "observers")
	}
	for _, p := range l.Processes {
		if l.Kind == kindRW {
			add(k.WriterChannel+":"+p.ID, "writers of process "+p.ID)
		} else {
			add(k.OwnChannels+p.ID, "process "+p.ID)
		}
	}
	if l.Queue != nil {
		for _, w := range l.Queue.Waiters {
			add(k.OwnChannels+w.Owner, "waiter "+w.Owner)
		}
	}
	return subs
}

// countSubscribers fills in how many connections are subscribed to each
// channel of subs (PUBSUB NUMSUB, and on a Cluster PUBSUB SHARDNUMSUB).
// lockkit subscribes one connection per Client (its notifier; on a
// Cluster, one per master it waits at), so the count is the number of
// processes with local waiters there. A classic subscriber may be
// connected to any node of a Cluster, so every node is asked and the
// counts are added up.
func countSubscribers(ctx context.Context, rc redis.UniversalClient, subs []Subscribers) error {
	if len(subs) == 0 {
		return nil
	}
	chans := make([]string, len(subs))
	for i, s := range subs {
		chans[i] = s.Channel
	}
	var mu sync.Mutex
	count := func(ctx context.Context, c redis.Cmdable) error {
		n, err := c.PubSubNumSub(ctx, chans...).Result()
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for i := range subs {
			subs[i].Count += n[subs[i].Channel]
		}
		return nil
	}
	cc, ok := rc.(*redis.ClusterClient)
	if err := nodes.All(ctx, rc, count); err != nil || !ok {
		return err
	}
	// On a Cluster, lockkit's subscribers use shard channels (Redis 7),
	// counted at the master of the lock's slot, which serves them all.
	master, err := cc.MasterForKey(ctx, chans[0])
	if err != nil {
		return err
	}
	n, err := master.PubSubShardNumSub(ctx, chans...).Result()
	var rerr redis.Error
	if errors.As(err, &rerr) {
		return nil // a server without sharded pub/sub
	}
	if err != nil {
		return err
	}
	for i := range subs {
		subs[i].Count += n[subs[i].Channel]
	}
	return nil
}
