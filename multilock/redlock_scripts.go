package multilock

import (
	_ "embed"

	"github.com/lockkit/lockkit/internal/lua"
)

// raiseScript brings a node's fencing counter up to a RedLock hold's token
// (the nodes' hash-lock scripts are internal/lua's Mutex set, run with
// kind 'redlock' and no channel: RedLock waiters use backoff).
var (
	//go:embed redlock_raise.lua
	raiseLua    string
	raiseScript = lua.Script(raiseLua)
)

// noChannel is the channel argument of the hash-lock scripts: a RedLock
// publishes nothing.
const noChannel = ""
