package redistest

import (
	"errors"
	"fmt"
	"net"
	"strconv"
)

// clusterBusOffset is the distance Redis Cluster puts between a node's
// client port and its cluster bus port.
const clusterBusOffset = 10000

// freePort returns a loopback TCP port that was free a moment ago. With
// bus set, port+10000 (the cluster bus port) was free as well. Another
// process can still grab the port before redis-server binds it; callers
// retry with a new port when that happens.
func freePort(bus bool) (int, error) {
	var lastErr error
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("redistest: finding a free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if bus {
			if port+clusterBusOffset > 65535 {
				l.Close()
				continue
			}
			b, err := net.Listen("tcp", hostPort(port+clusterBusOffset))
			if err != nil {
				lastErr = err
				l.Close()
				continue
			}
			b.Close()
		}
		l.Close()
		return port, nil
	}
	return 0, errors.Join(errors.New("redistest: no free port pair for a cluster node"), lastErr)
}

// hostPort returns "127.0.0.1:port".
func hostPort(port int) string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}
