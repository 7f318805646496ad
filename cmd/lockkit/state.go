package main

// The decoded state of a lock, as show prints it. The JSON field names
// are part of the command's interface (see doc.go) and stay stable; times
// are milliseconds: *_ms durations, *_at_ms instants of the server's
// clock.

// Lock is the state of one lock at one instant of the server's clock.
type Lock struct {
	// Name is the lock's name, Key its hash PREFIX:{NAME}.
	Name string `json:"name"`
	Key  string `json:"key"`
	// Kind is the hash's ':kind' field: reentrant, spin, fair, rwlock,
	// redlock, election or latch; empty when the lock is free (no hash).
	Kind string `json:"kind"`
	// Held reports whether some live hold exists (never for a latch,
	// which has no holds).
	Held bool `json:"held"`
	// Mode is how the lock is held: "free", "exclusive", "read" or
	// "write"; for a latch "closed" or "open"; for a semaphore "held"
	// (some permits are) or "free".
	Mode string `json:"mode"`
	// ServerTimeMS is the server's clock (TIME) when the state was read.
	ServerTimeMS int64 `json:"server_time_ms"`
	// TTLMS is the hash's PTTL: -2 when there is no hash, -1 when it has
	// no TTL.
	TTLMS int64 `json:"ttl_ms"`
	// Fence is the last fencing token minted for the name (0: none yet).
	Fence int64 `json:"fence"`
	// Holders are the holds in the hash.
	Holders []Holder `json:"holders"`
	// Queue is a fair lock's wait queue (null for other kinds).
	Queue *Queue `json:"queue"`
	// Writers are a read-write lock's waiting writers (null for other
	// kinds).
	Writers *Writers `json:"writers"`
	// Processes are the processes (lockkit Clients) registered as waiting
	// for a reentrant lock or an election, or whose writers wait for a
	// read-write lock, the one a release wakes first first (null for other
	// kinds, and while none waits).
	Processes []Process `json:"processes"`
	// Latch is a countdown latch's count (null for other kinds).
	Latch *Latch `json:"latch"`
	// Election is an election's leader (null for other kinds).
	Election *Election `json:"election"`
	// Semaphore is a semaphore's permits (null for other kinds).
	Semaphore *Semaphore `json:"semaphore"`
	// Subscribers counts, per wake-up channel, the connections subscribed
	// to it: one per process (lockkit Client) with local waiters. Only
	// show fills it.
	Subscribers []Subscribers `json:"subscribers"`
	// Anomalies are states lockkit's scripts never leave behind.
	Anomalies []string `json:"anomalies"`
}

// Latch is the state of a countdown latch (package latch). Its expiry,
// when it is forgotten unless counted down again, is the hash's PTTL
// (Lock.TTLMS).
type Latch struct {
	// Count is the count left: 0 once the latch is open.
	Count int64 `json:"count"`
	// Open reports a latch counted down to 0: every Await returns.
	Open bool `json:"open"`
	// CountDowns is the number of count-downs recorded since the latch
	// was created (their ids, kept until it opens; 0 once open).
	CountDowns int `json:"count_downs"`
}

// Semaphore is the state of a semaphore (package semaphore). Its holds
// are Lock.Holders (mode "permits", each with its permits and own lease),
// its waiters Lock.Queue (each with the permits it waits for).
type Semaphore struct {
	// Permits is the number of permits set at run time (SetPermits), null
	// when none is: then the number each semaphore.New was given applies,
	// which Redis does not keep.
	Permits *int64 `json:"permits"`
	// PermitsTTLMS is the PTTL of the number set at run time (-2: none).
	PermitsTTLMS int64 `json:"permits_ttl_ms"`
	// Used is the permits held (':used'), Live those of the holds whose
	// lease has not ended: the others are freed by the next script that
	// runs on the semaphore (an Acquire's, say).
	Used int64 `json:"used"`
	Live int64 `json:"live"`
	// Free is Permits - Live, what an Acquire could take now (negative
	// after the number shrank below what is held), null when Permits is.
	Free *int64 `json:"free"`
}

// Election is who leads an election (package election).
type Election struct {
	// Leader is the leader's hold id (its candidate's owner id), empty
	// when nobody leads.
	Leader string `json:"leader"`
	// Value is the value the leader campaigned with, null when nobody
	// leads or the leader has not proclaimed it yet (for a moment after
	// winning).
	Value *string `json:"value"`
	// Term is the leadership's term, its hold's fencing token (0: nobody
	// leads).
	Term int64 `json:"term"`
	// LeaseMS is the time left on the leader's lease (the hash's PTTL),
	// -1 without a TTL, -2 when nobody leads.
	LeaseMS int64 `json:"lease_ms"`
}

// Process is one process registered as waiting for a reentrant lock: a
// release wakes the process registered first, on its own channel.
type Process struct {
	// ID is the process's id (its notifier's).
	ID string `json:"id"`
	// WaitingMS is how long ago the process registered.
	WaitingMS int64 `json:"waiting_ms"`
}

// Holder is one hold in a lock's hash.
type Holder struct {
	// Owner is the owner id; Hold the hash field (the owner id, or
	// OWNER:w / OWNER:r for a read-write lock).
	Owner string `json:"owner"`
	Hold  string `json:"hold"`
	// Mode is "exclusive", "write", "read" or, for a semaphore, "permits".
	Mode string `json:"mode"`
	// Count is the hold count, Token the fencing token of the hold.
	Count int64 `json:"count"`
	Token int64 `json:"token"`
	// LeaseMS is the time left on the hold's lease: the hash's PTTL, or
	// for a read-write lock the hold's own lease (-1: none known).
	LeaseMS int64 `json:"lease_ms"`
	// Expired reports a read-write hold whose lease has ended but that no
	// script has purged yet; it no longer counts.
	Expired bool `json:"expired"`
	// LastAcquire and LastUnlock are the ids of the hold's last acquire
	// (the last one ':a:' lists; a leading '-' marks one undone) and last
	// partial unlock (the last one ':u:' lists), empty when unset.
	LastAcquire string `json:"last_acquire"`
	LastUnlock  string `json:"last_unlock"`
	// Info is who holds it (host, pid, since), a JSON object stored with
	// lockkit.WithHolderInfo (':m:'); empty when not stored.
	Info string `json:"info,omitempty"`
	// Permits is the permits of a semaphore's hold (0 for other kinds).
	Permits int64 `json:"permits,omitempty"`
}

// Queue is a fair lock's wait queue.
type Queue struct {
	// Length is the number of entries (ZCARD of PREFIX:{NAME}:waiters),
	// Deadlines of deadlines (ZCARD of PREFIX:{NAME}:timeouts).
	Length    int64 `json:"length"`
	Deadlines int64 `json:"deadlines"`
	// Waiters are the entries, first in line first (at most 1000).
	Waiters []Waiter `json:"waiters"`
}

// Waiter is one entry of a fair lock's queue.
type Waiter struct {
	Owner   string `json:"owner"`
	Arrival int64  `json:"arrival"`
	// DeadlineAtMS is when the entry is evicted unless the waiter attempts
	// again, LeftMS the time until then; both null when it has none.
	DeadlineAtMS *int64 `json:"deadline_at_ms"`
	LeftMS       *int64 `json:"left_ms"`
	// Expired reports an entry whose deadline has passed: its waiter
	// stopped attempting, and the next script evicts it.
	Expired bool `json:"expired"`
	// Permits is the permits a semaphore's waiter waits for (0 for a
	// fair lock's).
	Permits int64 `json:"permits,omitempty"`
}

// Writers are a read-write lock's waiting writers.
type Writers struct {
	// Waiting counts the live intents: writers waiting in Lock with
	// writer preference, which hold new readers back.
	Waiting int `json:"waiting"`
	// Intents are the intents, earliest deadline first.
	Intents []Intent `json:"intents"`
	// HandoffLeftMS is the time left of a hand-off reserving the lock for
	// the writers (null when there is none).
	HandoffLeftMS *int64 `json:"handoff_left_ms"`
	// Claimed reports the hash's ':claim': a waiting writer was refused,
	// and the release that frees the lock hands it off to the writers.
	Claimed bool `json:"claimed"`
}

// Intent is a waiting writer's intent.
type Intent struct {
	Owner        string `json:"owner"`
	DeadlineAtMS int64  `json:"deadline_at_ms"`
	LeftMS       int64  `json:"left_ms"`
	Expired      bool   `json:"expired"`
}

// Subscribers is the number of connections subscribed to one channel.
type Subscribers struct {
	Channel string `json:"channel"`
	// Role is who waits there: "waiters", "readers", "writers",
	// "candidates" (an election's, on a Cluster), "observers" (an
	// election's), "process ID" (a waiting process's own channel) or
	// "waiter OWNER" (a fair waiter's own channel).
	Role  string `json:"role"`
	Count int64  `json:"count"`
}

// Entry is one line of ls.
type Entry struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Mode    string   `json:"mode"`
	Holders []Holder `json:"holders"`
	// TTLMS is the hash's PTTL (-1: no TTL).
	TTLMS int64 `json:"ttl_ms"`
	// Waiters is the fair queue's length or a read-write lock's waiting
	// writers; null for kinds whose waiters wait only in their processes.
	Waiters *int64 `json:"waiters"`
	// Anomalies counts the anomalies show would list.
	Anomalies int `json:"anomalies"`
	// Latch is a latch's count (null for other kinds), Election an
	// election's leader (null for other kinds), as show gives them.
	Latch     *Latch     `json:"latch"`
	Election  *Election  `json:"election"`
	Semaphore *Semaphore `json:"semaphore"`
}

// entry returns l's line in ls.
func (l *Lock) entry() Entry {
	e := Entry{Name: l.Name, Kind: l.Kind, Mode: l.Mode, Holders: l.Holders, TTLMS: l.TTLMS, Anomalies: len(l.Anomalies),
		Latch: l.Latch, Election: l.Election, Semaphore: l.Semaphore}
	switch {
	case l.Queue != nil:
		n := l.Queue.Length
		e.Waiters = &n
	case l.Writers != nil:
		n := int64(l.Writers.Waiting)
		e.Waiters = &n
	case l.Semaphore != nil:
		var n int64
		e.Waiters = &n
	}
	return e
}
