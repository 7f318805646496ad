// Package watchdog keeps the leases of held locks alive, and reports a
// hold lost before its lease can lapse on the server.
//
// A [Watchdog] ([New]) serves one Redis client (a lockkit.Client owns one).
// While it has holds to look after it runs one goroutine that keeps the
// time: every time a lease is due (one third of its TTL after it was last
// set) it renews every lease due at or near that moment, and every time a
// lease reaches its deadline (below) it reports it lost. Between those
// moments it sleeps: starting a hold wakes it only when the hold falls due
// before it would wake anyway, and stopping one never does, so a lock
// taken and released in a tight loop costs it nothing. It exits about
// 100 ms after the last hold was stopped, if no other came meanwhile, or at
// Close.
//
// # Renewals never block the watchdog
//
// The renewals due together are sent from a goroutine of their own, so
// the watchdog's goroutine never waits for the network. They are grouped
// by shard and each shard's group goes out as one pipelined round trip,
// all shards at once, each with its own context: on a *redis.ClusterClient
// a shard is the master that serves the hold's first key (by the client's
// cached slot map, [redis.ClusterClient.MasterForKey]); on any other client
// all holds form one shard. A slow or silent node therefore delays only the
// holds it serves, never a hold on another node.
//
// go-redis applies a context's deadline to socket reads only when the
// client was created with ContextTimeoutEnabled; otherwise a round trip to
// a silent server lasts the client's ReadTimeout (5 s by default) whatever
// the context says. The watchdog does not rely on it.
//
// # The deadline
//
// The watchdog keeps, for each hold, when the last confirmed renewal (or
// the acquire) was sent. The server counts the lease from when it ran the
// script, which is later, so the lease lasts at least until that send time
// plus the TTL. The hold's deadline is that moment less a safety margin of
// TTL/20, at most 100 ms and at least 1 ms, which covers a timer that
// fires late and a local clock running slower than the server's. If no
// renewal was confirmed by the deadline, the hold is reported lost then,
// with a cause matching [ErrNotRenewed] (wrapping the last renewal's error
// if one failed), even while a renewal is still in flight: its reply may
// come after the lease lapsed and another owner took the lock. A failed
// renewal is retried after TTL/10 (at most 1 s) until the deadline.
//
// A renewal that finds the hold gone reports it lost at once, with a nil
// cause. Renewals never use the context of the call that took the lock.
//
// # The life of a hold
//
// A lock registers its hold before it sends the acquire ([Watchdog.Register])
// and starts it once the acquire succeeded ([Hold.Start]). On unlock it
// suspends the hold ([Hold.Suspend]) before sending the release, and then
// stops or resumes it. Neither Suspend nor Stop waits for a renewal in
// flight, so a silent server never makes an unlock wait for it: the renew
// script, fenced by the hold's token, changes nothing on the server if it
// arrives after the release, and its reply is ignored once the hold is
// stopped. While the hold is suspended such a reply can only extend the
// lease the watchdog knows of; one that finds the hold gone (maybe
// released) is ignored. A suspended hold is neither renewed nor reported
// lost, except at Close (below).
//
// A hold with a fixed lease (a Lease without a Script) is never renewed;
// the watchdog only reports its end, a margin (see [Margin]) before the
// acquire's send time plus the TTL, so that, as for a renewed lease, the
// holder is told before the server's lease can lapse. A fixed lease with a
// Script that only verifies the hold (Lease.Fixed) ends alike, but is
// verified when a renewed one would be renewed, so that a hold the server
// lost is reported lost as soon. [Watchdog.Close]
// stops everything, reports every hold still started (suspended or not)
// lost with [ErrClosed], and waits for the renewals in flight to return.
package watchdog
