package semaphore

import (
	"embed"

	"github.com/lockkit/lockkit/internal/lua"
)

//go:embed *.lua
var files embed.FS

// script returns the script of the named file, after the prelude, the
// wait queue's helpers and semaphore.lua.
var script = lua.QueueLoader(files, "semaphore.lua")

// The semaphore's scripts: the engine's four (see core.Spec), and its own.
var (
	acquireScript = script("acquire.lua")
	releaseScript = script("release.lua")
	renewScript   = script("renew.lua")
	undoScript    = script("undo.lua")
	leaveScript   = script("leave.lua")
	permitsScript = script("permits.lua")
	stateScript   = script("state.lua")
)

// The last argument of acquire.lua: whether a refused attempt joins the
// queue.
const (
	joinQueue = "1" // Acquire: join, or keep the place
	tryOnly   = "0" // TryAcquire: never queue
)
