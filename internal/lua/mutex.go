package lua

import (
	"embed"

	"github.com/redis/go-redis/v9"
)

//go:embed mutex/*.lua
var mutexFiles embed.FS

// Set is a kind's scripts, one per operation of the engine (see
// core.Spec for their standard ARGV and replies).
type Set struct {
	Acquire, Release, Renew, Undo, Force *redis.Script
}

// Mutex is the hash lock's Set: one hold per name, a field per owner with
// its hold count (mutex/*.lua). Reentrant and spin locks run it, and so
// does each node of a RedLock; the kind is an argument, so the names stay
// apart.
var Mutex = Set{
	Acquire: file(mutexFiles, "mutex/acquire.lua"),
	Release: file(mutexFiles, "mutex/release.lua"),
	Renew:   file(mutexFiles, "mutex/renew.lua"),
	Undo:    file(mutexFiles, "mutex/undo.lua"),
	Force:   file(mutexFiles, "mutex/force.lua"),
}

// file returns the script of the named file of fsys, after the prelude.
// The files are embedded, so a missing one is a build mistake: it panics.
func file(fsys embed.FS, name string) *redis.Script {
	src, err := fsys.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return Script(string(src))
}
