package main

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
)

// wireCounter counts the commands a process's clients write to Redis, by
// reading the bytes each connection writes as RESP: every top-level array
// (`*N\r\n` followed by N bulk strings) is one command. It sits below every
// client library, so it sees what their hooks cannot: SUBSCRIBE and PING on
// pub/sub connections, connection handshakes (HELLO, CLIENT SETINFO,
// CLIENT TRACKING), pipelined and auto-pipelined commands alike. Every
// library is counted the same way.
type wireCounter struct {
	commands atomic.Int64
	// bad counts bytes that did not parse as RESP arrays of bulk strings;
	// it stays 0 for the clients benchmarked here.
	bad atomic.Int64
}

// wrap returns c counting the commands written through it into w.
func (w *wireCounter) wrap(c net.Conn) net.Conn {
	return &countingConn{Conn: c, w: w}
}

// dial connects with d and wraps the connection, so that every client
// library dials through the same counting.
func (w *wireCounter) dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return w.wrap(c), nil
}

// countingConn is a net.Conn whose writes are parsed by a respParser.
type countingConn struct {
	net.Conn
	w  *wireCounter
	mu sync.Mutex // guards p; writes on one conn are already serialised, but cheap to be sure
	p  respParser
}

// Write parses b as part of the outgoing RESP stream, then writes it.
func (c *countingConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	cmds, bad := c.p.feed(b)
	c.mu.Unlock()
	if cmds > 0 {
		c.w.commands.Add(cmds)
	}
	if bad > 0 {
		c.w.bad.Add(bad)
	}
	return c.Conn.Write(b)
}

// respParser is a streaming parser of the requests a client writes: RESP
// arrays of bulk strings, split across writes at any byte.
type respParser struct {
	state int   // one of the st* constants
	num   int64 // number being read
	elems int64 // bulk strings left in the current array
	skip  int64 // payload bytes (+CRLF) left in the current bulk string
}

const (
	stArray   = iota // expecting '*'
	stBulk           // expecting '$'
	stNum            // reading digits of an array or bulk header
	stNumLF          // expecting '\n' after a header's '\r'
	stPayload        // skipping a bulk string's payload and CRLF
)

// feed consumes b and returns the commands completed in it and the bytes
// that were not valid RESP requests.
func (p *respParser) feed(b []byte) (cmds, bad int64) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch p.state {
		case stArray:
			if c != '*' {
				bad++
				continue
			}
			p.state, p.num, p.elems = stNum, 0, -1 // elems -1: reading the array header
		case stBulk:
			if c != '$' {
				bad++
				p.state = stArray
				continue
			}
			p.state, p.num = stNum, 0
		case stNum:
			switch {
			case c >= '0' && c <= '9':
				p.num = p.num*10 + int64(c-'0')
			case c == '\r':
				p.state = stNumLF
			default:
				bad++
				p.state = stArray
			}
		case stNumLF:
			if c != '\n' {
				bad++
				p.state = stArray
				continue
			}
			if p.elems < 0 { // array header done: one command
				cmds++
				p.elems = p.num
				p.state = stBulk
				if p.elems == 0 {
					p.state = stArray
				}
			} else { // bulk header done
				p.skip = p.num + 2
				p.state = stPayload
			}
		case stPayload:
			n := min(p.skip, int64(len(b)-i))
			p.skip -= n
			i += int(n) - 1
			if p.skip == 0 {
				p.elems--
				p.state = stBulk
				if p.elems == 0 {
					p.state = stArray
				}
			}
		}
	}
	return cmds, bad
}
