package fair

import (
	"embed"

	"github.com/lockkit/lockkit/internal/lua"
)

// scripts are the fair lock's, one per operation of the engine: each is
// the prelude, the queue helpers (internal/lua's queue.lua, then fair's
// queue.lua) and its own file. A renewal
// does not touch the queue: it is the hash lock's.
var scripts = lua.Set{
	Acquire: script("acquire.lua"),
	Release: script("release.lua"),
	Renew:   lua.Mutex.Renew,
	Undo:    script("undo.lua"),
	Force:   script("force.lua"),
}

// leaveScript takes a waiter that gives up out of the queue.
var leaveScript = script("leave.lua")

//go:embed *.lua
var files embed.FS

// script returns the script of the named file, after the prelude, the
// shared queue helpers and queue.lua.
var script = lua.QueueLoader(files, "queue.lua")

// The last argument of acquire.lua: whether a caller that cannot take the
// lock joins the queue.
const (
	joinQueue = "1" // Lock: join, or keep the place
	tryOnly   = "0" // TryLock and re-entry: never queue
)
