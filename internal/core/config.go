package core

import (
	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
)

// MaxNameLen bounds a lock's name, in bytes.
const MaxNameLen = 1024

// Config is one lock value's resolved configuration.
type Config struct {
	config.Options
	// Client is the Client the lock was made from.
	Client *lockkit.Client
	// Name is the lock's name.
	Name string
	// Keys are the lock's Redis names.
	Keys Keys
	// OwnOwner is set when the owner id was minted for this lock value:
	// no other value holds under it, so a hold found under it that the
	// value does not know of can only be its own (and may be undone).
	OwnOwner bool
}

// Resolve checks a lock's client and name and applies, over the defaults
// of kind, the Client's options and then opts. The first problem found is
// returned as an error matching ErrInvalid (or ErrClosed when the Client
// is closed); nothing is sent to Redis.
func Resolve(c *lockkit.Client, kind, name string, opts []lockkit.Option) (Config, error) {
	// A kind built on another's type (spin and fair on reentrant's) names
	// itself with its first option: learn the kind before the defaults.
	probe := config.Defaults(kind)
	config.Apply(&probe, opts)
	kind = probe.Kind
	cfg := Config{Client: c, Name: name, Options: config.Defaults(kind)}
	if c == nil {
		return cfg, Invalid("%s %q: client must not be nil", kind, name)
	}
	if err := c.Err(); err != nil {
		return cfg, err
	}
	switch {
	case name == "":
		return cfg, Invalid("%s: lock name must not be empty", kind)
	case len(name) > MaxNameLen:
		return cfg, Invalid("%s: lock name is %d bytes, more than %d", kind, len(name), MaxNameLen)
	}
	cfg.ApplyingDefaults(true)
	config.Apply(&cfg.Options, c.Options())
	cfg.Trace = nil // the Client reports to its own (lockkit.Client.Traces)
	cfg.ApplyingDefaults(false)
	config.Apply(&cfg.Options, opts)
	if p := cfg.Problems(); len(p) > 0 {
		return cfg, Invalid("%s %q: %s", kind, name, p[0])
	}
	if cfg.Owner == "" {
		cfg.Owner = NewOwner()
		cfg.OwnOwner = true
	}
	cfg.Keys = NewKeys(cfg.Prefix, name, Sharded(c.Redis()))
	return cfg, nil
}
