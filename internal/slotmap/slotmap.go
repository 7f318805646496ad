// Package slotmap keeps a Cluster client's map of slots to masters up to
// date through a failover. go-redis reads the map again when a node
// answers MOVED, and otherwise every ClusterStateReloadInterval (a minute
// by default): a client whose commands go to a master that was killed
// gets only errors from it, never MOVED, and would keep sending there,
// its holds unrenewed and its Unlock failing, until the interval passed.
// Every command of lockkit's engine and watchdog goes through Check.
package slotmap

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/rediserr"
)

// stalePrefixes start the error replies that say the client's map may be
// out of date: the slot lives elsewhere now (MOVED, ASK), the Cluster is
// settling a failover (CLUSTERDOWN), the node is a replica now
// (READONLY).
var stalePrefixes = []string{"MOVED", "ASK", "CLUSTERDOWN", "READONLY"}

// Check has rc read its map again (see Reload) when err says that the
// node a command went to may no longer serve the command's slot: it could
// not be reached (a network error, a connection closed under the reply, no
// connection to be had), or it answered with one of stalePrefixes. Other
// errors, and a client other than a Cluster client, do nothing.
func Check(rc redis.UniversalClient, err error) {
	if err != nil && stale(err) {
		Reload(rc)
	}
}

func stale(err error) bool {
	return rediserr.Unreachable(err) || rediserr.Reply(err, stalePrefixes...)
}

// Reload has a Cluster client read its map of slots again, in the
// background (go-redis runs one reload at a time, 200 ms apart at most,
// and folds the requests made meanwhile into the next). Any other client
// has no map: Reload does nothing.
func Reload(rc redis.UniversalClient) {
	if cc, ok := rc.(*redis.ClusterClient); ok {
		cc.ReloadState(context.Background())
	}
}

// followPoll is how often Follow looks at the client's map while it waits
// for a reload.
const followPoll = 5 * time.Millisecond

// Follow waits until rc's map places key's slot at the node a MOVED error
// named, after starting a reload, and reports whether it does: false when
// err is not a MOVED error or rc not a Cluster client, or when ctx ends
// or d passes first. go-redis follows a MOVED of a command sent through
// the Cluster client itself; a caller that speaks to the key's master
// directly (MasterForKey) follows it with Follow before it asks again.
func Follow(ctx context.Context, rc redis.UniversalClient, key string, err error, d time.Duration) bool {
	cc, ok := rc.(*redis.ClusterClient)
	addr, moved := movedTo(err)
	if !ok || !moved {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	t := time.NewTicker(followPoll)
	defer t.Stop()
	for {
		cc.ReloadState(ctx)
		if m, err := cc.MasterForKey(ctx, key); err == nil && m.Options().Addr == addr {
			return true
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return false
		}
	}
}

// movedTo returns the address a MOVED error reply names ("MOVED slot
// host:port").
func movedTo(err error) (addr string, ok bool) {
	var re redis.Error
	if !errors.As(err, &re) {
		return "", false
	}
	f := strings.Fields(re.Error())
	if len(f) < 3 || f[len(f)-3] != "MOVED" {
		return "", false
	}
	return f[len(f)-1], true
}
