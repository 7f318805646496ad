// Package faultmatrix holds the fault matrix: every lock kind (reentrant,
// fair, spin, the write and read sides of rwlock, a multi-lock) run through
// every fault the harness injects (a holder process killed, Redis
// restarted empty, Redis paused for longer than the lease, 20 ± 10 ms of
// latency, a network cut longer than the lease, a storm of cancelled Lock
// calls, a Sentinel failover), with an exclusion checker watching the
// holders.
//
// The checker keeps, on a Redis server that no fault touches, a plain
// counter that every holder increments with a separate read and write (two
// holders at once lose an increment), a record in memory of who is inside
// each lock (a holder entering while another is inside and has not been
// told it lost the lock is an overlap), and a fenced store: a counter that
// accepts a read or a write only with fencing tokens no smaller than the
// largest it has seen, so that a stale holder is refused.
//
// Per cell it reports violations (which must be 0), Lock or Unlock calls
// that outlived their ctx (stuck, 0), goroutines left behind (0), and how
// long the lock took to be detected lost or taken over. The test prints
// the table, and writes it to the file named by LOCKKIT_MATRIX_OUT when
// set.
//
// The package has no code of its own; it exists for its tests.
package faultmatrix
