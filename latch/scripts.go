package latch

import (
	"embed"

	"github.com/lockkit/lockkit/internal/lua"
)

//go:embed *.lua
var files embed.FS

// The latch's scripts, each the prelude and its own file.
var (
	countDownScript = lua.Load(files, "countdown.lua")
	countScript     = lua.Load(files, "count.lua")
)
