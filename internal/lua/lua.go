// Package lua assembles lockkit's Lua scripts: each is the shared prelude
// (server time, kind guard, token minting, fenced release with an unlock
// id, undo; see prelude.lua) followed by a kind's own file, whose header
// names its KEYS, ARGV and returns.
package lua

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

//go:embed prelude.lua
var prelude string

// Script returns the script made of the prelude and src. Run it with
// Script.Run (EVALSHA, falling back to EVAL on NOSCRIPT).
func Script(src string) *redis.Script {
	return redis.NewScript(prelude + "\n" + src)
}

// Scripts returns the scripts made of the prelude followed by common and
// each of srcs in turn, for kinds whose scripts share definitions.
func Scripts(common string, srcs ...string) []*redis.Script {
	out := make([]*redis.Script, len(srcs))
	for i, src := range srcs {
		out[i] = Script(common + "\n" + src)
	}
	return out
}
