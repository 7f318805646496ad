// Package watchdog keeps the leases of held locks alive.
//
// A [Watchdog] ([New]) serves one Redis client (a lockkit.Client owns one):
// while it has holds to look after it
// runs one goroutine that, every time a lease is due (one third of its TTL
// after it was last set), renews every lease due at or near that moment in
// one pipelined round trip. go-redis splits the pipeline by slot, so this
// works on Cluster too. The goroutine exits when the last hold is stopped.
//
// A renewal that finds the hold gone marks it lost and calls its OnLost
// function; so do Redis errors that persist until the lease would have
// lapsed (earlier failures are retried). Renewals never use the context of
// the call that took the lock.
//
// A lock registers its hold before it sends the acquire ([Watchdog.Register])
// and starts it once the acquire succeeded ([Hold.Start]). On unlock it
// suspends the hold, which waits for any renewal in flight, before sending
// the release, so a renewal can never land after the release and report a
// hold it gave up as lost.
//
// A hold with a fixed lease (a Lease without a Script) is never renewed;
// the watchdog only reports its end. [Watchdog.Close] stops everything and
// reports every hold still started lost, with [ErrClosed].
package watchdog
