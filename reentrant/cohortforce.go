package reentrant

import "context"

// forceLocal is ForceUnlock in cohort mode. When m holds the process's
// hold, it frees it in Redis as m's own release would end it: m holds
// nothing afterwards and its lost signal stays open, the local waiters go
// on without the hold, as after m's Unlock. Otherwise it is the plain
// ForceUnlock, whose removal of the process's hold, lent to another Mutex,
// is that Mutex's loss (see Exclusive.Forced).
func (m *Mutex) forceLocal(ctx context.Context) (bool, error) {
	if err := m.x.CheckInput(ctx); err != nil {
		return false, err
	}
	co := m.held.Load()
	if co == nil {
		return m.ex().ForceUnlock(ctx)
	}
	co.mu.Lock()
	if co.holder != m || co.releasing || co.caught() != nil {
		co.mu.Unlock()
		return m.ex().ForceUnlock(ctx)
	}
	co.releasing = true // m neither re-enters nor unlocks meanwhile
	co.mu.Unlock()
	ok, err := co.redis.ForceUnlock(ctx)
	co.mu.Lock()
	if err != nil {
		// The outcome is unknown: m keeps its hold, lost once the watchdog
		// finds it gone (at once: see Exclusive.Forced).
		co.releasing = false
		co.mu.Unlock()
		m.x.Cfg.Client.Watchdog().Check()
		return false, err
	}
	co.ended()
	return ok, nil
}
