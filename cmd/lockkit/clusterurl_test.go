package main

import (
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestConnect_cluster_URL_takes_more_nodes_as_addr checks what doc.go says
// of -u with --cluster: more nodes may be given as ?addr=HOST:PORT. The
// URL's own node is a port where nothing listens, so show and ls reach the
// Cluster, and find the lock on its master, only through the added node.
func TestConnect_cluster_URL_takes_more_nodes_as_addr(t *testing.T) {
	cl := redistest.StartCluster(t)
	c, prefix := prefixed(t, cl.Client(t))
	m := holdReentrant(t, c)
	conn := cli{conn: []string{"--cluster", "-u", "redis://127.0.0.1:1?addr=" + cl.Servers()[1].Addr()}}
	conn.wantShowsHeld(t, prefix, m)
	conn.wantListsAlone(t, prefix, m)
}
