package multilock

import (
	_ "embed"

	"github.com/lockkit/lockkit/internal/lua"
)

// The scripts a RedLock runs on each node, each the prelude followed by
// its file.
var (
	//go:embed redlock_acquire.lua
	acquireLua    string
	acquireScript = lua.Script(acquireLua)

	//go:embed redlock_release.lua
	releaseLua    string
	releaseScript = lua.Script(releaseLua)

	//go:embed redlock_renew.lua
	renewLua    string
	renewScript = lua.Script(renewLua)

	//go:embed redlock_undo.lua
	undoLua    string
	undoScript = lua.Script(undoLua)

	//go:embed redlock_raise.lua
	raiseLua    string
	raiseScript = lua.Script(raiseLua)
)
