package fair

import (
	"embed"

	"github.com/lockkit/lockkit/internal/lua"
)

// The scripts of the fair lock: each is the prelude, the queue helpers of
// queue.lua and its own file. A renewal does not touch the queue: it is
// the hash lock's (internal/lua's Mutex.Renew).
var (
	acquireScript = script("acquire.lua")
	releaseScript = script("release.lua")
	undoScript    = script("undo.lua")
	leaveScript   = script("leave.lua")
	forceScript   = script("force.lua")
)

//go:embed *.lua
var files embed.FS

// script returns the script of the named file, after the prelude and
// queue.lua.
var script = lua.Loader(files, "queue.lua")

// The last argument of acquire.lua: whether a caller that cannot take the
// lock joins the queue.
const (
	joinQueue = "1" // Lock: join, or keep the place
	tryOnly   = "0" // TryLock and re-entry: never queue
)
