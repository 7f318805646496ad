package notify

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// split divides chans, the channels of c, between those its next
// connection subscribes (stay) and those it must not (stray), and returns
// home, the master that next connection is opened at: on a Cluster, a
// shard connection goes to one master, which refuses a channel of a slot
// it does not serve. So when a resharding moved some of the slots of c's
// channels to other masters, the channels that stay are those served, by
// the Cluster client's slot map, at c's master (or, if none is, at the
// first channel's), first those whose master is known; the others stray,
// to be subscribed at their own master. home is nil when no channel's
// master is known. On any other connection every channel stays, and home
// is nil. subMu held.
func (n *Notifier) split(c *conn, chans []*channel) (stay, stray []*channel, home *redis.Client) {
	cc, ok := n.client.(*redis.ClusterClient)
	if !ok || !c.sharded {
		return chans, nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.health)
	defer cancel()
	masters := make([]string, len(chans)) // "" where unknown
	for i, ch := range chans {
		m, err := cc.MasterForKey(ctx, c.wire(ch.name))
		if err != nil {
			continue
		}
		masters[i] = m.Options().Addr
		if home == nil || masters[i] == c.addr {
			home = m
		}
	}
	var unknown []*channel
	for i, ch := range chans {
		switch {
		case masters[i] == "":
			unknown = append(unknown, ch)
		case masters[i] == home.Options().Addr:
			stay = append(stay, ch)
		default:
			stray = append(stray, ch)
		}
	}
	return append(stay, unknown...), stray, home
}
