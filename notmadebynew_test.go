package lockkit_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/spin"
)

// TestValues_not_made_by_New_return_ErrInvalid_and_never_panic calls
// every exported method of the values a caller may hold without having
// them from their New: a nil pointer and a zero value of the Client, of
// every lock kind, of a semaphore's Permits and of an election's
// Leadership (what a failed Acquire or Campaign returns is nil), and the
// locks of every kind made from a nil or zero Client. None panics; every
// error returned, but Close's, matches ErrInvalid; every context returned
// has ended.
func TestValues_not_made_by_New_return_ErrInvalid_and_never_panic(t *testing.T) {
	values := map[string]any{}
	for _, c := range []struct {
		what string
		c    *lockkit.Client
	}{{"nil Client", nil}, {"zero Client", new(lockkit.Client)}} {
		values[c.what] = c.c
		values["reentrant of a "+c.what] = reentrant.New(c.c, "x")
		values["fair of a "+c.what] = fair.New(c.c, "x")
		values["spin of a "+c.what] = spin.New(c.c, "x")
		values["rwlock of a "+c.what] = rwlock.New(c.c, "x")
		values["multilock of a "+c.what] = multilock.New([]lockkit.Locker{reentrant.New(c.c, "x")})
		values["RedLock of a "+c.what] = multilock.NewRedLock([]*lockkit.Client{c.c}, "x")
		values["semaphore of a "+c.what] = semaphore.New(c.c, "x", 1)
		values["latch of a "+c.what] = latch.New(c.c, "x", 1)
		values["election of a "+c.what] = election.New(c.c, "x")
	}
	for what, pair := range map[string][2]any{
		"reentrant.Mutex":     {(*reentrant.Mutex)(nil), new(reentrant.Mutex)},
		"rwlock.RWMutex":      {(*rwlock.RWMutex)(nil), new(rwlock.RWMutex)},
		"multilock.Mutex":     {(*multilock.Mutex)(nil), new(multilock.Mutex)},
		"multilock.RedLock":   {(*multilock.RedLock)(nil), new(multilock.RedLock)},
		"semaphore.Semaphore": {(*semaphore.Semaphore)(nil), new(semaphore.Semaphore)},
		"semaphore.Permits":   {(*semaphore.Permits)(nil), new(semaphore.Permits)},
		"latch.Latch":         {(*latch.Latch)(nil), new(latch.Latch)},
		"election.Election":   {(*election.Election)(nil), new(election.Election)},
		"election.Leadership": {(*election.Leadership)(nil), new(election.Leadership)},
	} {
		values["nil "+what], values["zero "+what] = pair[0], pair[1]
	}
	for what, v := range values {
		t.Run(what, func(t *testing.T) {
			rv := reflect.ValueOf(v)
			for i := range rv.NumMethod() {
				name := rv.Type().Method(i).Name
				if name == "Go" || name == "Locals" {
					continue // they run the func they are given
				}
				t.Run(name, func(t *testing.T) { wantNoPanicOrInvalid(t, name, rv.Method(i)) })
			}
		})
	}
}

// ctxType is the type of a context.Context argument or result.
var ctxType = reflect.TypeFor[context.Context]()

// wantNoPanicOrInvalid calls method, named name, with a background ctx,
// 1 for an int and "v" for a string (the zero value for anything else),
// and fails the test if it panics, returns an error that does not match
// ErrInvalid (but for Close, which may return nil) or a context that has
// not ended.
func wantNoPanicOrInvalid(t *testing.T, name string, method reflect.Value) {
	t.Helper()
	mt := method.Type()
	args := make([]reflect.Value, mt.NumIn())
	for i := range args {
		switch in := mt.In(i); {
		case in == ctxType:
			args[i] = reflect.ValueOf(context.Background())
		case in.Kind() == reflect.Int:
			args[i] = reflect.ValueOf(1).Convert(in)
		case in.Kind() == reflect.String:
			args[i] = reflect.ValueOf("v").Convert(in)
		default:
			args[i] = reflect.Zero(in)
		}
	}
	out, panicked := callRecovering(method, args)
	if panicked != nil {
		t.Fatalf("%s panicked: %v", name, panicked)
	}
	for _, o := range out {
		switch r := o.Interface().(type) {
		case error:
			if !errors.Is(r, lockkit.ErrInvalid) {
				t.Errorf("%s returned %v, want an error matching ErrInvalid", name, r)
			}
		case context.Context:
			if r.Err() == nil {
				t.Errorf("%s returned a context that has not ended", name)
			}
		}
		if o.Type() == ctxType && o.IsNil() {
			t.Errorf("%s returned a nil context", name)
		}
		if o.Type() == reflect.TypeFor[error]() && o.IsNil() && name != "Close" {
			t.Errorf("%s returned a nil error, want one matching ErrInvalid", name)
		}
	}
}

// callRecovering calls method with args and returns its results, or what
// it panicked with.
func callRecovering(method reflect.Value, args []reflect.Value) (out []reflect.Value, panicked any) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	return method.Call(args), nil
}
