// Package faultmatrix holds the fault matrix: every lock kind (reentrant,
// reentrant in cohort mode, fair, spin, the write and read sides of
// rwlock, a multi-lock, a semaphore of two permits, an election) run
// through every fault the harness injects (a holder process killed, Redis
// restarted empty, Redis paused for longer than the lease, 20 ± 10 ms of
// latency, a network cut longer than the lease, a storm of cancelled Lock
// calls, a Sentinel failover, a Cluster failover by SIGKILL of the lock's
// master and by CLUSTER FAILOVER), with an exclusion checker watching the
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
// A semaphore lets two holders in at once: the checker counts a third as
// an overlap, holders increment the counters in one command, and its
// fenced store refuses a holder's token when two holds with larger tokens
// are inside (each hold has a token of its own, larger than any before
// it, so its permit has then been given to another). A semaphore is taken
// over once the workers hold both permits. An election is an exclusive
// lock: Campaign is its Lock, Resign its Unlock, the end of the
// leadership's Context its lost signal and the term its token.
//
// Cohort mode (reentrant.WithLocalHandoff, at most 4 hand-overs or a
// quarter of the lease in a row) only matters when several owners of one
// process share a Client, so its cells give every process several owners:
// the workers run on two Clients, two on each; the victim's Client runs
// a worker beside the victim, which waits in memory while the victim
// holds across the fault; the holder child starts a second owner that
// waits beside the holder. A hand-over mints no token, so a hold with the
// token of the hold before it was handed over in memory: each cohort cell
// waits until the workers have handed the lock over after the fault.
//
// Latches are not in the matrix: a latch has no holder, lease or token,
// so the checker has nothing to watch, and a fault can only lose its
// count-downs (a restart without persistence or a failover before
// replication; latch documents that the latch then starts afresh and its
// waiters wait for a full count again). Latch's own
// TestAwait_across_a_Redis_restart shows that Await neither hangs nor
// returns early across a restart.
//
// Per cell it reports violations (which must be 0), Lock or Unlock calls
// that outlived their ctx (stuck, 0), goroutines left behind (0), and how
// long the lock took to be detected lost or taken over. The test prints
// the table, and writes it to the file named by LOCKKIT_MATRIX_OUT when
// set. LOCKKIT_MATRIX_KINDS, when set, names the kinds to run, separated by
// commas (for example "reentrant cohort"); all run by default.
//
// The package has no code of its own; it exists for its tests.
package faultmatrix
