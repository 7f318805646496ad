package core

import (
	"sync"
	"sync/atomic"
)

// LostSignal is a hold's lost signal: a channel closed once, when the hold
// is found lost, and the ErrLost it was lost with. The zero value is not
// ready: its channel is made with it (see NewHold).
type LostSignal struct {
	once sync.Once
	ch   chan struct{} // closed once, when the hold is found lost
	err  error         // ErrLost with its cause; written once, before set
	set  atomic.Bool   // err is written

	mu    sync.Mutex    // guards what follows
	after []func(error) // see AfterLost; nil once called
	fired bool          // the hold is lost and after was called
}

// Lose marks the hold on lock name lost with cause (nil when it simply
// vanished) and closes the channel. It is idempotent: it reports whether
// this call did it.
func (s *LostSignal) Lose(name string, cause error) bool {
	return s.lose(Lost(name, cause), nil)
}

// lose marks the hold lost with err, which matches ErrLost already: Err
// returns it from then on; before, unless nil, is called with it next, and
// then the channel is closed, so that whoever sees the channel closed sees
// what before did (a hold's context ended). It is idempotent: it reports
// whether this call did it.
func (s *LostSignal) lose(err error, before func(error)) bool {
	fired := false
	s.once.Do(func() {
		s.err = err
		s.set.Store(true)
		if before != nil {
			before(err)
		}
		close(s.ch)
		fired = true
	})
	if fired {
		s.mu.Lock()
		after := s.after
		s.after, s.fired = nil, true
		s.mu.Unlock()
		for _, f := range after {
			f(err)
		}
	}
	return fired
}

// AfterLost calls f with the hold's loss once it is found lost: in the call
// that finds it lost, after the channel closed, so that f has returned when
// that call does (Client.Close's included); at once, in this call, if the
// hold is lost by now.
func (s *LostSignal) AfterLost(f func(error)) {
	s.mu.Lock()
	if !s.fired {
		s.after = append(s.after, f)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	f(s.Err())
}

// Done returns a channel that is closed when the hold is found lost.
// Nothing is ever sent on it.
func (s *LostSignal) Done() <-chan struct{} { return s.ch }

// Err returns an error matching ErrLost (with its cause) once the hold is
// lost, and nil before.
func (s *LostSignal) Err() error {
	if s.set.Load() {
		return s.err
	}
	return nil
}
