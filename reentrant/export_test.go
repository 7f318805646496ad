package reentrant

// LocalWaiters returns how many Locks wait in memory for the local lock of
// m's cohort (WithLocalHandoff).
func LocalWaiters(m *Mutex) int {
	co := join(m)
	defer co.leave()
	co.mu.Lock()
	defer co.mu.Unlock()
	return len(co.queue)
}

// LoseUnfollowed marks the Redis hold of m's cohort lost, as the watchdog
// does, at the instant before the loss reaches the tenure of its holder:
// the hold's lost signal fires but its context, which passes the loss on
// (see watch), does not end, so that only a caller's own check can find
// it.
func LoseUnfollowed(m *Mutex) {
	co := join(m)
	defer co.leave()
	co.mu.Lock()
	defer co.mu.Unlock()
	co.hold.LostSignal.Lose(m.x.Cfg.Name, nil)
}
