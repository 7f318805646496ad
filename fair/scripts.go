package fair

import (
	_ "embed"

	"github.com/lockkit/lockkit/internal/lua"
)

// The scripts of the fair lock: each is the prelude, the queue helpers of
// queue.lua and its own file, except renew.lua, which does not touch the
// queue and follows the prelude alone.
var (
	//go:embed queue.lua
	queueLua string

	//go:embed acquire.lua
	acquireLua    string
	acquireScript = lua.Script(queueLua + "\n" + acquireLua)

	//go:embed release.lua
	releaseLua    string
	releaseScript = lua.Script(queueLua + "\n" + releaseLua)

	//go:embed renew.lua
	renewLua    string
	renewScript = lua.Script(renewLua)

	//go:embed undo.lua
	undoLua    string
	undoScript = lua.Script(queueLua + "\n" + undoLua)

	//go:embed leave.lua
	leaveLua    string
	leaveScript = lua.Script(queueLua + "\n" + leaveLua)

	//go:embed force.lua
	forceLua    string
	forceScript = lua.Script(queueLua + "\n" + forceLua)
)

// The last argument of acquire.lua: whether a caller that cannot take the
// lock joins the queue.
const (
	joinQueue = "1" // Lock: join, or keep the place
	tryOnly   = "0" // TryLock and re-entry: never queue
)
