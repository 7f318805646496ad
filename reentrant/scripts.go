package reentrant

import (
	_ "embed"

	"github.com/lockkit/lockkit/internal/lua"
)

// The scripts of the hash lock, each the prelude followed by its file.
var (
	//go:embed acquire.lua
	acquireLua    string
	acquireScript = lua.Script(acquireLua)

	//go:embed release.lua
	releaseLua    string
	releaseScript = lua.Script(releaseLua)

	//go:embed renew.lua
	renewLua    string
	renewScript = lua.Script(renewLua)

	//go:embed undo.lua
	undoLua    string
	undoScript = lua.Script(undoLua)

	//go:embed force.lua
	forceLua    string
	forceScript = lua.Script(forceLua)
)
