package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// respConn is a minimal RESP2 connection used to probe servers while
// they start up, without the background machinery of a go-redis client.
// It understands the reply types that PING, INFO and CLUSTER INFO/NODES
// produce.
type respConn struct {
	conn net.Conn
	r    *bufio.Reader
}

// dialRESP connects to addr; every operation on the connection must finish
// within timeout of the dial.
func dialRESP(addr string, timeout time.Duration) (*respConn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	if err := c.SetDeadline(time.Now().Add(timeout)); err != nil {
		c.Close()
		return nil, err
	}
	return &respConn{conn: c, r: bufio.NewReader(c)}, nil
}

// Close closes the connection.
func (c *respConn) Close() error { return c.conn.Close() }

// do sends one command and returns its reply as a string. A Redis error
// reply is returned as an error.
func (c *respConn) do(args ...string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(c.conn, b.String()); err != nil {
		return "", err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", errors.New("redistest: empty RESP reply")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return "", fmt.Errorf("redis error: %s", line[1:])
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", fmt.Errorf("redistest: unexpected bulk reply %q", line)
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	default:
		return "", fmt.Errorf("redistest: unsupported RESP reply %q", line)
	}
}

// infoField returns the value of field in an INFO-style "name:value" text.
func infoField(info, field string) (string, bool) {
	for line := range strings.Lines(info) {
		name, value, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ":")
		if ok && name == field {
			return value, true
		}
	}
	return "", false
}
