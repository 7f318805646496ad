// Package rediserr tells what a go-redis error says of the node that was
// asked: that it could not be reached, or which error reply it gave.
package rediserr

import (
	"errors"
	"io"
	"net"

	"github.com/redis/go-redis/v9"
)

// Unreachable reports whether err says that the node could not be
// reached or stopped answering: a network error (a dial refused, a
// timeout), a connection closed under the reply, or no connection to be
// had in time from the client's pool.
func Unreachable(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, redis.ErrPoolTimeout)
}

// Reply reports whether err is an error reply that begins with one of
// prefixes (MOVED, LOADING, …).
func Reply(err error, prefixes ...string) bool {
	for _, prefix := range prefixes {
		if redis.HasErrorPrefix(err, prefix) {
			return true
		}
	}
	return false
}
