// Package core is lockkit's one engine. A lock kind is a small
// configuration of it: its scripts (built on internal/lua's prelude) and
// the way a caller waits between attempts. The engine owns everything
// else, once:
//
//   - option resolution and input checks ([Resolve]);
//   - key names with a safe hash tag ([NewKeys]);
//   - the hold: owner, token, count, lease, lost signal ([Hold]);
//   - the acquire protocol: serialise an owner's calls, register with the
//     watchdog, send, record, or undo an acquire whose reply was lost
//     ([Holder.Attempt]);
//   - the retry-safe, fenced release with one unlock id per Unlock, which
//     still releases when the caller's ctx has ended, and settles a last
//     Unlock in doubt in the background ([Holder.Release]);
//   - the wait loop and its three waiters: pub/sub, backoff and the fair
//     queue ([Wait]).
package core
