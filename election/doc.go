// Package election provides leader election on Redis: candidates
// ([Election]) [Election.Campaign] until one leads, the leader works under
// its [Leadership]'s context and resigns, and anyone can ask who leads
// ([Election.Leader]) or follow the changes ([Election.Observe]). It is
// etcd's concurrency.Election on a lockkit lock.
//
// # How it works
//
// The leadership is a reentrant lock of the same name (package
// reentrant), of kind 'election': Campaign is its Lock, Resign its
// Unlock, and the leader's term is its fencing token. Nothing about holds
// is new: the watchdog renews the leader's lease every third of it (30 s
// by default, [github.com/lockkit/lockkit.WithWatchdogTimeout]), a leader
// that dies is replaced at the end of its lease, and candidates wait as
// for any reentrant lock, woken by pub/sub when the leader resigns and by
// the lease's end when it dies. [Election.ForceUnlock] frees the
// leadership whoever holds it, as the lock's ForceUnlock does (every
// candidate woken), and tells the observers, as Resign does.
//
// # Redis layout
//
// The lock's hash PREFIX:{NAME} (see package reentrant) with ':kind' =
// 'election', and beside the leader's hold the field ':v:' + its hold id
// = the value it campaigned with, written right after it won; the value
// thus lives, is renewed and ends with the hold. Candidates are woken on
// PREFIX:{NAME}:ch, observers on PREFIX:{NAME}:observe, where '*' is
// published by a new leader's proclamation and by every script that frees
// the leadership (a resignation, a give-back, a force unlock), in that
// same script, so that a freed leadership is told even when the reply of
// the call that freed it is lost. Both keys and both channels share the
// {NAME} hash tag.
//
// # Guarantees and limits
//
// At most one candidate leads while its lease lives, and each leadership
// has a larger term than every one before it, across clients, and across
// a Redis restart that lost the data as long as the server's clock does
// not go back. A leader learns that it lost the leadership (its
// Context ends) before the server can hand it to another candidate, as
// long as its process runs and nobody ends the leadership by hand (a
// ForceUnlock, or its keys deleted: the leader learns of that at its
// next renewal, which may come after another candidate leads); a leader
// that pauses (GC, a stopped VM) for longer than its lease, or whose
// Redis primary fails over before the hold was replicated, can still act
// after another took over. Pass the term to what the leader writes to, as
// a fencing token, when that matters. For a moment after winning, a leader has not proclaimed its
// value yet: Leader then reports nobody.
package election
