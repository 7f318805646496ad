package notify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/slotmap"
)

// ShardMark begins the name of a shard channel: the channel named by the
// rest, which a Notifier subscribes with SSUBSCRIBE where the server has
// sharded pub/sub (Redis 7), and with SUBSCRIBE on an older one. A
// publisher sends it with SPUBLISH or PUBLISH to match. On a Cluster a
// shard channel's messages stay within the shard of its slot, where a
// classic channel's are relayed to every node; a Notifier then keeps one
// connection per master it subscribes at.
const ShardMark = "{s}"

// conn is one PubSub connection and the goroutine that receives from it: a
// Notifier has one for its classic channels, and one for its shard
// channels per Cluster master (see route).
type conn struct {
	key     string
	sharded bool           // SSUBSCRIBE, not SUBSCRIBE
	marked  bool           // its channels' names begin with ShardMark
	ps      *redis.PubSub  // written under subMu and mu
	stop    chan struct{}  // closed to stop the receive loop
	done    chan struct{}  // closed when the receive loop has returned
	pending map[string]int // subscribes sent and not yet confirmed, by channel; under mu
	names   int            // channels on it; under mu
	// master is, on a Cluster, the client of the master a shard
	// connection is opened at, the one its channels' slots had then, and
	// addr that master's address. For any other connection, or when the
	// master was not known (the Cluster client then picks a node), nil
	// and "". Read and written by the receive loop only, once the
	// connection exists.
	master *redis.Client
	addr   string
	// shard, on a Ring client, is the Ring's shard for ringKey, a channel
	// of the connection, when the connection was last opened: where it
	// goes. nil for any other client. Under mu.
	shard   *redis.Client
	ringKey string
}

// wire returns the name Redis knows channel name by.
func (c *conn) wire(name string) string {
	if c.marked {
		return strings.TrimPrefix(name, ShardMark)
	}
	return name
}

// local returns the name of the channel Redis knows as wire.
func (c *conn) local(wire string) string {
	if c.marked {
		return ShardMark + wire
	}
	return wire
}

// send subscribes ps to channels, one command each for shard channels
// (SSUBSCRIBE takes channels of one slot only).
func (c *conn) send(ctx context.Context, ps *redis.PubSub, names ...string) error {
	if !c.sharded {
		return ps.Subscribe(ctx, names...)
	}
	var errs []error
	for _, name := range names {
		errs = append(errs, ps.SSubscribe(ctx, name))
	}
	return errors.Join(errs...)
}

// stopReceiving closes the connection and waits for its goroutine.
func (c *conn) stopReceiving() {
	close(c.stop)
	_ = c.ps.Close()
	<-c.done
}

// ringPrefix begins the key of a connection to a shard of a Ring client.
const ringPrefix = "ring "

// open opens a PubSub connection for c's channels: a Cluster's shard
// connection at c.master, where known (go-redis would pick the node from
// its slot map when it dials, which may have changed since c.addr was
// read); on a Ring client, at the Ring's shard for them (the one c had,
// while the Ring counts every shard down: a Ring cannot open a PubSub
// connection without a channel); on any other, wherever the client
// subscribes. mu held.
func (n *Notifier) open(c *conn) *redis.PubSub {
	switch {
	case c.master != nil:
		return c.master.Subscribe(context.Background())
	case c.shard == nil:
		return n.client.Subscribe(context.Background())
	}
	if shard, err := n.client.(*redis.Ring).GetShardClientForKey(c.ringKey); err == nil {
		c.shard = shard
	}
	return c.shard.Subscribe(context.Background())
}

// route returns which connection channel name is subscribed on: "" for a
// classic channel (on a Ring client, the connection to the shard of the
// channel, keyed by its address); for a shard channel, the connection to
// the master of its slot on a Cluster (keyed by its address; master is
// that master's client), or the one shard connection of another client;
// or, where the server has no sharded pub/sub, a classic connection of
// its own. subMu held.
func (n *Notifier) route(ctx context.Context, name string) (key string, sharded, marked bool, master *redis.Client, err error) {
	wire, ok := strings.CutPrefix(name, ShardMark)
	if !ok {
		if r, ok := n.client.(*redis.Ring); ok {
			// A Ring publishes a channel on the shard of its name.
			shard, err := r.GetShardClientForKey(name)
			if err != nil {
				return "", false, false, nil, err
			}
			return ringPrefix + shard.Options().Addr, false, false, nil, nil
		}
		return "", false, false, nil, nil
	}
	if n.sharding == 0 {
		ok, err := hasSharding(ctx, n.client)
		if err != nil {
			return "", false, false, nil, err
		}
		n.sharding = -1
		if ok {
			n.sharding = 1
		}
	}
	if n.sharding < 0 {
		return ShardMark, false, true, nil, nil
	}
	cc, ok := n.client.(*redis.ClusterClient)
	if !ok {
		return ShardMark + "*", true, true, nil, nil
	}
	m, err := cc.MasterForKey(ctx, wire)
	if err != nil {
		return "", false, false, nil, err
	}
	return ShardMark + m.Options().Addr, true, true, m, nil
}

// hasSharding reports whether the server of rc has sharded pub/sub (Redis
// 7): COMMAND INFO answers nil for a command it does not have. Where
// COMMAND is not allowed, the version INFO reports decides; where neither
// is, sharded pub/sub is assumed, as the scripts find it on Redis 7.
func hasSharding(ctx context.Context, rc redis.UniversalClient) (bool, error) {
	info, err := rc.Do(ctx, "COMMAND", "INFO", "SSUBSCRIBE").Slice()
	var rerr redis.Error
	switch {
	case err == nil:
		return len(info) == 1 && info[0] != nil, nil
	case !errors.As(err, &rerr):
		return false, err
	}
	server, err := rc.Info(ctx, "server").Result()
	switch {
	case err == nil:
		for line := range strings.SplitSeq(server, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
				major, _, _ := strings.Cut(v, ".")
				n, err := strconv.Atoi(major)
				return err != nil || n >= 7, nil
			}
		}
		return true, nil
	case errors.As(err, &rerr):
		return true, nil
	}
	return false, err
}

// subscribe sends the subscribe of ch, opening its connection if needed.
func (n *Notifier) subscribe(ctx context.Context, ch *channel) error {
	n.subMu.Lock()
	defer n.subMu.Unlock()
	return n.subscribeHeld(ctx, ch)
}

// subscribeHeld is subscribe with subMu held. An error that says a
// Cluster client's map of slots may be out of date (the master it names
// is unreachable: a failover) has it read the map again, so that the
// subscribe tried next goes to the new master (see slotmap.Check).
func (n *Notifier) subscribeHeld(ctx context.Context, ch *channel) (err error) {
	defer func() { slotmap.Check(n.client, err) }()
	name := ch.name
	key, sharded, marked, master, err := n.route(ctx, name)
	if err != nil {
		return err
	}
	n.mu.Lock()
	if n.channels[name] != ch {
		// Everyone left before we got here; a channel of that name joined
		// since sends its own subscribe.
		n.mu.Unlock()
		return nil
	}
	select {
	case <-n.closed:
		n.mu.Unlock()
		return ErrClosed
	default:
	}
	c := n.conns[key]
	if c == nil {
		c = &conn{key: key, sharded: sharded, marked: marked, pending: map[string]int{},
			stop: make(chan struct{}), done: make(chan struct{})}
		if strings.HasPrefix(key, ringPrefix) {
			shard, err := n.client.(*redis.Ring).GetShardClientForKey(name)
			if err != nil {
				n.mu.Unlock()
				return err
			}
			c.ringKey, c.shard = name, shard
		} else if master != nil {
			c.master, c.addr = master, master.Options().Addr
		}
		c.ps = n.open(c)
		n.conns[key] = c
		go n.receive(c)
	}
	ch.conn = c
	c.names++
	c.pending[name]++
	ps := c.ps
	n.mu.Unlock()
	if err := c.send(ctx, ps, c.wire(name)); err != nil {
		// Not sent: no confirmation is owed for it. (go-redis subscribes
		// the channel again when it reconnects, unless the waiters leave
		// and unsubscribe it first; that confirmation then confirms the
		// channel for the waiters still on it.) Left counted, it would
		// keep the channel from ever being confirmed again on this
		// connection.
		n.mu.Lock()
		if c.pending[name] > 1 {
			c.pending[name]--
		} else {
			delete(c.pending, name)
		}
		n.mu.Unlock()
		return err
	}
	return nil
}

// unsubscribe sends the unsubscribe of ch unless its channel has waiters
// again, and closes its connection when no channel is left there.
func (n *Notifier) unsubscribe(ch *channel) {
	n.subMu.Lock()
	defer n.subMu.Unlock()
	n.mu.Lock()
	c := ch.conn
	if c == nil || n.conns[c.key] != c {
		// Never subscribed, or the connection is closed.
		n.mu.Unlock()
		return
	}
	ch.conn = nil
	c.names--
	_, again := n.channels[ch.name]
	idle := c.names == 0
	if idle {
		delete(n.conns, c.key)
	}
	ps := c.ps
	n.mu.Unlock()
	ctx, cancel := n.bounded(context.Background())
	defer cancel()
	switch {
	case idle:
		c.stopReceiving()
	case again:
	case c.sharded:
		_ = ps.SUnsubscribe(ctx, c.wire(ch.name))
	default:
		_ = ps.Unsubscribe(ctx, ch.name)
	}
}

// bounded returns ctx ended after two health intervals, for a request on
// a PubSub connection. go-redis opens a broken PubSub connection anew
// inside the request that uses it next (or that found it broken), and
// retries that as the client is set to (MaxRetries, MaxRetryBackoff): a
// client set to retry long would otherwise hold the request, and the
// receiving goroutine or subMu with it, for a minute or more while the
// server is down or still starting. Ended so, the request fails and the
// notifier tries again on its own schedule.
func (n *Notifier) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 2*n.health)
}

// receive dispatches messages from c until c.stop is closed. When the
// connection stays silent for a health interval it pings it; when the ping
// gets no reply within another interval the connection is dead, and it is
// replaced (see replace). So it is when the server answers with an error
// (a shard channel subscribed at a node that no longer serves its slot,
// say) or unsubscribes a shard channel on its own (its slot moved, by a
// failover or a resharding).
func (n *Notifier) receive(c *conn) {
	defer close(c.done)
	ctx := context.Background()
	n.mu.Lock()
	ps := c.ps
	n.mu.Unlock()
	backoff := time.Duration(0)
	pinged := false // a ping was sent and nothing arrived since
	pause := func() bool {
		backoff = min(max(2*backoff, 10*time.Millisecond), time.Second)
		select {
		case <-c.stop:
			return false
		case <-time.After(backoff):
			return true
		}
	}
	// settle counts the health intervals left at whose start a Cluster
	// client's slot map is read again: a map read during a failover or
	// a resharding may still name the master the slots left, and go-redis
	// reads it again by itself only on a MOVED, which a connection that
	// only receives never gets, or after a minute.
	settle := 0
	// report wakes c's waiters and reports why ps is to be replaced (see
	// disconnected), once for each connection: at once, whether or not
	// replace can run now (a subscribe held up by a server that does not
	// answer holds subMu until go-redis gives up).
	var reported *redis.PubSub
	report := func(ps *redis.PubSub, why error) {
		if reported != ps {
			reported = ps
			n.disconnected(c, why)
		}
	}
	// rehome moves c to a new connection (see Notifier.rehome), trying
	// again while it cannot yet; nil once c is stopped.
	rehome := func(ps *redis.PubSub, why error) *redis.PubSub {
		settle = settleChecks
		report(ps, why)
		for {
			if next := n.rehome(c, ps); next != nil {
				return next
			}
			if !pause() {
				return nil
			}
		}
	}
	checked := time.Now() // when the slots of c's channels were last looked up
	for {
		if (c.sharded || settle > 0) && time.Since(checked) >= n.health {
			checked = time.Now()
			if settle > 0 {
				settle--
				slotmap.Reload(n.client)
			}
			if c.sharded && n.moved(c) {
				if ps = rehome(ps, errMoved); ps == nil {
					return
				}
			}
		}
		rctx, cancel := n.bounded(ctx)
		msg, err := ps.ReceiveTimeout(rctx, n.health)
		cancel()
		select {
		case <-c.stop:
			return
		default:
		}
		var rerr redis.Error
		var ne net.Error
		switch {
		case err == nil:
		case errors.As(err, &rerr):
			// An error reply, to a subscribe: nothing else is sent. The
			// slot map may still be stale and the next connection refused
			// as well: pause first, longer each time until a message
			// arrives, so that this does not spin.
			if !pause() {
				return
			}
			if ps = rehome(ps, err); ps == nil {
				return
			}
			continue
		case errors.As(err, &ne) && ne.Timeout():
			if pinged {
				report(ps, fmt.Errorf("notify: no reply to a health check within %v", n.health))
				if next := n.replace(c, ps); next != nil {
					ps, pinged = next, false
				}
				continue
			}
			pctx, cancel := n.bounded(ctx)
			_ = ps.Ping(pctx)
			cancel()
			pinged = true
			continue
		case errors.Is(err, redis.ErrClosed) && c.master != nil && !n.clientClosedNow():
			// The Cluster client closed its client of a master it no
			// longer lists: open the connection at the slots' master now.
			if !pause() {
				return
			}
			if ps = rehome(ps, err); ps == nil {
				return
			}
			continue
		case errors.Is(err, redis.ErrClosed):
			// The go-redis client was closed by its user: no connection
			// opens again. Fail the subscribes still unconfirmed, wake
			// every waiter once to find the client closed, and wait to be
			// stopped.
			n.clientClosed(c, err)
			<-c.stop
			return
		default:
			// The connection broke: messages may have been lost. Wake every
			// waiter to re-check now; each is woken again when its channel
			// is confirmed on the new connection. On a Cluster, the
			// master that broke it may be failing over: go-redis opens the
			// connection again where its map says.
			n.disconnected(c, err)
			settle = settleChecks
			if !pause() {
				return
			}
			continue
		}
		backoff, pinged, reported = 0, false, nil // it answers: a later loss is reported anew
		switch m := msg.(type) {
		case *redis.Subscription:
			switch m.Kind {
			case "subscribe", "ssubscribe":
				n.confirmed(c, c.local(m.Channel))
			case "sunsubscribe":
				if n.mine(c, c.local(m.Channel)) {
					// Not asked for: the slot moved away from this node.
					if ps = rehome(ps, errMoved); ps == nil {
						return
					}
				}
			}
		case *redis.Message:
			n.deliver(c.local(m.Channel), m.Payload)
		}
	}
}

// moved reports whether the slot of a shard channel of c is now served by
// a master other than the one c was opened at, as the Cluster client's slot
// map says: after a CLUSTER FAILOVER the old master stays in the shard as a
// replica and keeps its subscribers, which the new master's publishes do
// not count.
func (n *Notifier) moved(c *conn) bool {
	cc, ok := n.client.(*redis.ClusterClient)
	if !ok {
		return false
	}
	n.mu.Lock()
	var wire string
	for name, ch := range n.channels {
		if ch.conn == c {
			wire = c.wire(name)
			break
		}
	}
	n.mu.Unlock()
	if wire == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.health)
	defer cancel()
	m, err := cc.MasterForKey(ctx, wire)
	return err == nil && m.Options().Addr != c.addr
}

// mine reports whether channel name is subscribed on c.
func (n *Notifier) mine(c *conn, name string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch := n.channels[name]
	return ch != nil && ch.conn == c
}

// rehome is replace after refreshing a Cluster client's slot map.
func (n *Notifier) rehome(c *conn, ps *redis.PubSub) *redis.PubSub {
	slotmap.Reload(n.client)
	return n.replace(c, ps)
}

// replace swaps ps, c's connection found dead, for a new one subscribed to
// every channel of c, and returns it; nil when it cannot now (a subscribe
// or unsubscribe is under way, or ps was closed or replaced already), and
// the next health interval tries again. (The receive loop has woken c's
// waiters and reported the loss already: opening the new connection can
// take go-redis's whole read timeout on a server that does not answer.)
// The confirmations arrive on the new connection and wake every waiter of
// their channel, to re-check what they may have missed. A shard channel
// that the Cluster's slot map now places at another master than the rest
// (its slot alone moved) is subscribed on the connection to that master
// instead (see split).
func (n *Notifier) replace(c *conn, ps *redis.PubSub) *redis.PubSub {
	if !n.subMu.TryLock() {
		return nil
	}
	defer n.subMu.Unlock()
	n.mu.Lock()
	if c.ps != ps || n.conns[c.key] != c {
		n.mu.Unlock()
		return nil
	}
	var chans []*channel
	for _, ch := range n.channels {
		if ch.conn == c {
			chans = append(chans, ch)
		}
	}
	n.mu.Unlock()
	// With subMu held, no channel joins or leaves c meanwhile.
	stay, stray, home := n.split(c, chans)
	n.mu.Lock()
	c.master, c.addr = home, ""
	if home != nil {
		c.addr = home.Options().Addr
	}
	var names []string
	clear(c.pending)
	for _, ch := range stay {
		if n.channels[ch.name] == ch {
			names = append(names, c.wire(ch.name))
			c.pending[ch.name]++
		}
	}
	var moved []*channel
	for _, ch := range stray {
		if n.channels[ch.name] == ch {
			ch.conn = nil
			c.names--
			moved = append(moved, ch)
		}
	}
	next := n.open(c)
	c.ps = next
	n.mu.Unlock()
	_ = ps.Close()
	ctx, cancel := n.bounded(context.Background())
	defer cancel()
	if len(names) > 0 {
		// A failed write is not final: go-redis resubscribes on its own.
		_ = c.send(ctx, next, names...)
	}
	for _, ch := range moved {
		// Its confirmation wakes its waiters. Should the lookup of its
		// master fail, the channel waits unsubscribed until its waiters
		// leave, as one whose subscribe failed.
		_ = n.subscribeHeld(ctx, ch)
	}
	return next
}

// settleChecks is for how many health intervals after it moved a
// connection the notifier has the slot map read again (see receive).
const settleChecks = 10

// errMoved is why a connection is replaced whose channels' slot moved to
// another master (see OnDisconnect).
var errMoved = errors.New("notify: the slot of the channels moved to another master")

// disconnected wakes every waiter of c's channels to re-check, and calls
// the OnDisconnect function with why, the reason.
func (n *Notifier) disconnected(c *conn, why error) {
	n.mu.Lock()
	// Confirmations owed by the old connection will never come; the new
	// one subscribes every channel again.
	clear(c.pending)
	for _, ch := range n.channels {
		if ch.conn == c {
			ch.wakeAll()
		}
	}
	n.mu.Unlock()
	if n.onDisconnect != nil {
		n.onDisconnect(why)
	}
}

// clientClosedNow reports whether the notifier's go-redis client was
// closed by its user.
func (n *Notifier) clientClosedNow() bool {
	ctx, cancel := n.bounded(context.Background())
	defer cancel()
	return errors.Is(n.client.Ping(ctx).Err(), redis.ErrClosed)
}

// clientClosed ends what waits on c when its go-redis client is closed:
// each subscribe of c still unconfirmed fails with err (see fail), and
// every waiter of c is woken (see disconnected).
func (n *Notifier) clientClosed(c *conn, err error) {
	n.mu.Lock()
	var unconfirmed []*channel
	for _, ch := range n.channels {
		if ch.conn == c && !ch.confirmed {
			unconfirmed = append(unconfirmed, ch)
		}
	}
	n.mu.Unlock()
	for _, ch := range unconfirmed {
		n.fail(ch, err)
	}
	n.disconnected(c, err)
}

// confirmed records Redis's confirmation of channel name's subscription
// on c.
func (n *Notifier) confirmed(c *conn, name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if c.pending[name] > 1 {
		c.pending[name]--
	} else {
		delete(c.pending, name)
	}
	ch := n.channels[name]
	switch {
	case ch == nil || ch.conn != c:
	case !ch.confirmed:
		if c.pending[name] == 0 {
			ch.confirmed = true
			close(ch.ready)
		}
	default:
		// Subscribed anew after a reconnect: releases may have been missed.
		ch.wakeAll()
	}
}
