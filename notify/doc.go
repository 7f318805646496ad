// Package notify wakes goroutines waiting for Redis locks through pub/sub.
//
// A [Notifier] keeps one go-redis PubSub connection per client, shared by
// every lock and waiter in the process. Per channel it keeps a refcounted
// subscription and a FIFO of local waiters: the first waiter subscribes (and
// waits for Redis to confirm it), the last one to leave unsubscribes, and the
// connection itself is closed, with its goroutine, when no channel is left.
//
// Releases publish one of two messages on a lock's channel. [WakeOne] wakes
// the head of the local FIFO, one waiter per process, so a release never
// starts a herd; [WakeAll] wakes every waiter (read-write locks, force
// unlock). A wake-up that arrives before its waiter sleeps is kept, and a
// woken waiter that leaves without the lock passes it on to the next. After
// the connection breaks every waiter is woken, and woken again when its
// channel is subscribed anew, because messages may have been lost meanwhile.
//
// Waiters also bound every wait by the lock's remaining lease (see
// [Waiter.Wait]), so a lost message delays a waiter by at most that long.
package notify
