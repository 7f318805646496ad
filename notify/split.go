package notify

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// split divides chans, the channels of c, between those its next
// connection subscribes (stay) and those it must not (stray): a shard
// connection on a Cluster goes to the master of the first channel it
// subscribes, which refuses a channel of a slot it does not serve. So
// when a resharding moved some of the slots of c's channels to other
// masters, the channels that stay are those served, by the Cluster
// client's slot map, at c's master (or, if none is, at the first
// channel's), first those whose master is known; the others stray, to be
// subscribed at their own master. On any other connection every channel
// stays. subMu held.
func (n *Notifier) split(c *conn, chans []*channel) (stay, stray []*channel) {
	cc, ok := n.client.(*redis.ClusterClient)
	if !ok || !c.sharded || len(chans) < 2 {
		return chans, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.health)
	defer cancel()
	masters := make([]string, len(chans)) // "" where unknown
	home := ""
	for i, ch := range chans {
		if m, err := cc.MasterForKey(ctx, c.wire(ch.name)); err == nil {
			masters[i] = m.Options().Addr
		}
		if masters[i] == c.addr || home == "" {
			home = masters[i]
		}
	}
	var unknown []*channel
	for i, ch := range chans {
		switch masters[i] {
		case home:
			stay = append(stay, ch)
		case "":
			unknown = append(unknown, ch)
		default:
			stray = append(stray, ch)
		}
	}
	return append(stay, unknown...), stray
}
