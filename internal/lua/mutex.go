package lua

import (
	"embed"

	"github.com/redis/go-redis/v9"
)

//go:embed mutex/*.lua info.lua
var mutexFiles embed.FS

// Info stores a hold's holder information beside it (info.lua), for every
// kind.
var Info = Load(mutexFiles, "info.lua")

// Set is a kind's scripts, one per operation of the engine (see
// core.Spec for their standard ARGV and replies).
type Set struct {
	Acquire, Release, Renew, Undo, Force *redis.Script
	// Pass hands a wake-up that a process could not use to the next
	// waiting process; nil for a kind whose releases wake no single
	// process.
	Pass *redis.Script
}

// Mutex is the hash lock's Set: one hold per name, a field per owner with
// its hold count (mutex/*.lua). Reentrant and spin locks run it, and so
// does each node of a RedLock; the kind is an argument, so the names stay
// apart.
var Mutex = Set{
	Acquire: Load(mutexFiles, "mutex/acquire.lua"),
	Release: Load(mutexFiles, "mutex/release.lua"),
	Renew:   Load(mutexFiles, "mutex/renew.lua"),
	Undo:    Load(mutexFiles, "mutex/undo.lua"),
	Force:   Load(mutexFiles, "mutex/force.lua"),
	Pass:    Load(mutexFiles, "mutex/pass.lua"),
}
