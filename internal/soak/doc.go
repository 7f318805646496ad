// Package soak holds the tests of what a long-lived process keeps after
// many faults: every lock kind (reentrant, reentrant in cohort mode,
// fair, spin, the read and write sides of rwlock, a multi-lock, RedLock
// over three servers, a semaphore, an election with an observer, and a
// latch's Await) runs a loop of rounds in one process, each with a holder
// and waiters of two Clients active across one fault: the server killed
// and restarted empty at once, or down for longer than the lease, its
// pub/sub or its normal connections killed (CLIENT KILL TYPE pubsub, TYPE
// normal), a stall longer than the lease (DEBUG SLEEP), the network of
// the holder's Client cut for longer than the lease. On a Sentinel
// deployment, every kind of one server runs at once, each on a name of
// its own, through rounds of killed connections and of failovers (the
// master killed, a replica promoted). And every lock kind runs through
// rounds in which the holder's Unlock gives up while its network is cut,
// its outcome unknown, and is never called again.
//
// After each fault the hold is kept or reported lost as documented (kept
// across killed connections, lost across an empty restart, a server down
// or a cut longer than the lease, either across a stall or a failover),
// the waiters take the lock, every hold's fencing tokens are larger than
// those of every hold before it (in cohort mode, a hold handed over in
// memory keeps its token), and then the process and the servers settle
// into the state they had after the first round: the Clients keep no
// channel, PubSub connection, watchdog hold or local entry (an election's
// observer keeps its one channel on its one connection), no goroutine is
// left from the round, the servers have no subscriber and no key but
// those the kinds document (the fencing counters, the released tokens for
// their 10 s, the latches' hashes), and the heap has not grown past a
// bound. While the waiters wait after a fault, no Client keeps more than
// one PubSub connection.
//
// The package has no code of its own; it exists for its tests.
package soak
