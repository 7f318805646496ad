package election

import (
	"embed"

	"github.com/lockkit/lockkit/internal/lua"
)

//go:embed *.lua
var files embed.FS

// The election's own scripts, each the prelude, holder.lua and its own
// file. Holds are taken, renewed and released by the hash lock's scripts.
var (
	proclaimScript = script("proclaim.lua")
	leaderScript   = script("leader.lua")
)

var script = lua.Loader(files, "holder.lua")
