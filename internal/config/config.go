// Package config holds the settings of a lockkit Client and of every lock
// kind: one struct, filled by lockkit.Option values and checked in one
// place (internal/core). Users never name it; they pass Options.
package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// The kinds an Options value can configure. A Client's options are the
// defaults of every lock made from it; its Kind is Client.
const (
	Client    = "client"
	Reentrant = "reentrant"
	Fair      = "fair"
	Spin      = "spin"
	RW        = "rwlock"
	Multi     = "multilock"
	RedLock   = "redlock"
	Latch     = "latch"
	Election  = "election"
	Semaphore = "semaphore"
)

// Defaults shared by every kind.
const (
	// DefaultPrefix starts every key unless WithPrefix says otherwise.
	DefaultPrefix = "lockkit"
	// DefaultWatchdogTimeout is the lease the watchdog keeps renewing.
	DefaultWatchdogTimeout = 30 * time.Second
	// MinLease is the shortest lease or watchdog timeout accepted: Redis
	// leases are whole milliseconds, and the watchdog renews every third.
	MinLease = 3 * time.Millisecond
	// MaxLease is the longest lease accepted (a year): longer ones are
	// almost always a unit mistake.
	MaxLease = 365 * 24 * time.Hour
	// MaxOwnerLen bounds an owner id set with WithOwner.
	MaxOwnerLen = 512
	// MaxPrefixLen bounds a key prefix.
	MaxPrefixLen = 512
)

// Options are the settings of one Client or lock. The zero value is not
// ready: start from Defaults.
type Options struct {
	// Kind is what is being configured (see the constants above).
	Kind string

	// Lease is the fixed lease of every hold; zero means the watchdog
	// keeps holds alive with WatchdogTimeout leases.
	Lease time.Duration
	// WatchdogTimeout is the lease the watchdog renews every third of.
	WatchdogTimeout time.Duration
	// Owner is the owner id; empty means a fresh one for the lock value.
	Owner string
	// Prefix starts every key of the lock.
	Prefix string

	// Trace is the *lockkit.Trace of WithTrace, or nil.
	Trace any
	// HolderInfo stores who holds each fresh hold beside it.
	HolderInfo bool
	// Logger is the *slog.Logger of WithLogger (Client only), or nil.
	Logger any
	// MaxHold bounds how long the watchdog renews a hold; 0 = no bound.
	MaxHold time.Duration
	// WaiterTimeout is how long a fair lock's queue entry outlives its
	// waiter's last sign of life.
	WaiterTimeout time.Duration
	// PreferWriters makes a waiting writer hold back new readers.
	PreferWriters bool
	// BackoffFloor and BackoffCap bound a spin lock's sleeps; the bound
	// grows by BackoffMultiplier (0: 2) per refused attempt, and with
	// BackoffExact a sleep is the bound itself rather than random below it.
	BackoffFloor, BackoffCap time.Duration
	BackoffMultiplier        float64
	BackoffExact             bool
	// NodeTimeout bounds one request to one RedLock node; 0 means the
	// default, min(lease/10, 250 ms).
	NodeTimeout time.Duration
	// DriftFactor is the share of a RedLock lease set aside for clock drift.
	DriftFactor float64
	// LockWait bounds a multi-lock's wait for any one member; 0 = no bound.
	LockWait time.Duration
	// Expiry is how long a latch lives after its last count-down.
	Expiry time.Duration
	// ReplicaAcks is how many replicas must acknowledge a fresh hold
	// within ReplicaAckTimeout; 0 = none asked.
	ReplicaAcks       int
	ReplicaAckTimeout time.Duration
	// NoReentry makes a hash lock refuse its owner's own hold like
	// another owner's: a second Lock waits, a TryLock fails.
	NoReentry bool
	// HandoffMax and HandoffHold bound a reentrant lock's local
	// hand-overs (cohort mode): how many in a row, and for how long since
	// the process took the hold from Redis. HandoffMax 0 = off.
	HandoffMax  int
	HandoffHold time.Duration

	// Strategy, when set, is how an exclusive lock of the hash-lock type
	// takes its hold (a core.Strategy; the fair lock sets it). It is set
	// only by a kind's constructor, never by users.
	Strategy any
	// Vacancy, when set, is the part (see core.Keys.Chan) of a channel on
	// which a hash lock's scripts that free the lock publish '*', in the
	// same script: the word to those who follow who holds it (an
	// election's observers) that nobody does now. It is set only by a
	// kind's constructor, never by users.
	Vacancy string

	// defaults is set while a Client's options are applied to a lock:
	// an option that does not apply to the lock's kind is then a default
	// for other kinds, and is skipped.
	defaults bool

	problems []string
}

// Defaults of the kind-specific settings.
const (
	DefaultWaiterTimeout = 5 * time.Second
	DefaultBackoffFloor  = time.Millisecond
	DefaultBackoffCap    = 128 * time.Millisecond
	DefaultDriftFactor   = 0.01
	MaxNodeTimeout       = 250 * time.Millisecond
	DefaultExpiry        = 24 * time.Hour
)

// Defaults returns the default settings of kind.
func Defaults(kind string) Options {
	return Options{
		Kind:            kind,
		WatchdogTimeout: DefaultWatchdogTimeout,
		Prefix:          DefaultPrefix,
		WaiterTimeout:   DefaultWaiterTimeout,
		PreferWriters:   true,
		BackoffFloor:    DefaultBackoffFloor,
		BackoffCap:      DefaultBackoffCap,
		DriftFactor:     DefaultDriftFactor,
		Expiry:          DefaultExpiry,
	}
}

// Fail records that option was given a bad value; the lock then reports
// an error matching lockkit.ErrInvalid that names it.
func (o *Options) Fail(option, format string, a ...any) {
	o.problems = append(o.problems, option+": "+fmt.Sprintf(format, a...))
}

// For reports whether option applies to the kind being configured, and
// records a problem when it does not. A Client accepts every option that
// any kind of the list accepts, as a default for the locks made from it,
// unless clientToo is false.
func (o *Options) For(option string, clientToo bool, kinds ...string) bool {
	if slices.Contains(kinds, o.Kind) || (clientToo && o.Kind == Client) {
		return true
	}
	if o.defaults && clientToo {
		return false
	}
	if o.Kind == Client {
		o.Fail(option, "cannot be a Client default; give it to each lock")
	} else {
		article := "a"
		if strings.ContainsAny(o.Kind[:1], "aeiou") {
			article = "an"
		}
		o.Fail(option, "does not apply to %s %s lock (only to %v)", article, o.Kind, kinds)
	}
	return false
}

// Positive returns the option called option that, where it applies (see
// For), gives a positive duration d to set; a d not above zero is recorded
// as a problem: "what must be positive".
func Positive(option, what string, d time.Duration, clientToo bool, kinds []string, set func(*Options)) func(*Options) {
	return func(o *Options) {
		if !o.For(option, clientToo, kinds...) {
			return
		}
		if d <= 0 {
			o.Fail(option, "%s must be positive, got %v", what, d)
			return
		}
		set(o)
	}
}

// ClientOnly reports whether an option that only a Client takes applies
// to o, and records a problem when it is given to a lock (as a Client's
// default, it is passed over).
func (o *Options) ClientOnly(option string) bool {
	switch {
	case o.Kind == Client:
		return true
	case !o.defaults:
		o.Fail(option, "is an option of the Client only; give it to lockkit.New")
	}
	return false
}

// ApplyingDefaults marks whether the options being applied are a
// Client's defaults (see For).
func (o *Options) ApplyingDefaults(on bool) { o.defaults = on }

// Apply applies opts to o in order; a nil option is recorded as a problem.
func Apply[F ~func(*Options)](o *Options, opts []F) {
	for i, opt := range opts {
		if opt == nil {
			o.Fail("options", "option %d is nil", i)
			continue
		}
		opt(o)
	}
}

// Problems returns what Fail recorded, in order.
func (o *Options) Problems() []string { return o.problems }

// TTL returns the lease a hold gets when it is taken: the fixed lease, or
// the watchdog timeout.
func (o *Options) TTL() time.Duration {
	if o.Lease > 0 {
		return o.Lease
	}
	return o.WatchdogTimeout
}

// Watched reports whether the watchdog renews holds.
func (o *Options) Watched() bool { return o.Lease == 0 }

// IsNil reports whether v is nil or a nil pointer in an interface, such as
// a typed nil client or lock.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
