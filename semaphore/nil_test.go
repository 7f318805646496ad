package semaphore_test

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestPermits_nil_is_safe_to_ask: the methods of a nil *Permits (what a
// failed Acquire returns) report nothing held and do not panic: no ids, a
// zero token, a nil Lost channel, and a Release that returns ErrInvalid,
// through the Semaphore too. A nil Semaphore's Name is empty.
func TestPermits_nil_is_safe_to_ask(t *testing.T) {
	c, _ := redistest.Silent(t)
	var p *semaphore.Permits
	if ids, tok, lost := p.IDs(), p.Token(), p.Lost(); ids != nil || tok != 0 || lost != nil {
		t.Fatalf("nil Permits: IDs %v, Token %d, Lost %v; want nil, 0, nil", ids, tok, lost)
	}
	redistest.WantInvalid(t, "Release of nil Permits", p.Release(context.Background()), "nil")
	s := semaphore.New(c, "x", 1)
	redistest.WantInvalid(t, "Semaphore.Release of nil Permits", s.Release(context.Background(), p), "nil")
	if s.Name() != "x" || (*semaphore.Semaphore)(nil).Name() != "" {
		t.Fatalf("Name = %q and %q for nil; want x and empty", s.Name(), (*semaphore.Semaphore)(nil).Name())
	}
}
