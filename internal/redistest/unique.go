package redistest

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// uniqueSeq numbers the names handed out by Unique. It is process-wide
// because process-wide uniqueness is what Unique promises.
var uniqueSeq atomic.Uint64

// Unique returns a lock name that is unique within the process: the test's
// name, with every character other than ASCII letters, digits, '-', '_' and
// '.' replaced by '_', followed by '-' and a process-wide sequence number.
// Tests that share a server can use it to never collide. The name contains
// no braces, so it never forms a cluster hash tag by itself.
func Unique(t testing.TB) string {
	t.Helper()
	prefix := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		default:
			return '_'
		}
	}, t.Name())
	if len(prefix) > maxUniquePrefix {
		prefix = prefix[:maxUniquePrefix]
	}
	return prefix + "-" + strconv.FormatUint(uniqueSeq.Add(1), 10)
}
