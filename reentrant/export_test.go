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
