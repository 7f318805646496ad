// Package lua assembles lockkit's Lua scripts: each is the shared prelude
// (server time, kind guard, token minting, fenced release with an unlock
// id, undo; see prelude.lua) followed by a kind's own file, whose header
// names its KEYS, ARGV and returns. Kinds whose waiters take turns in a
// FIFO queue also load the queue's helpers (queue.lua, see QueueLoader).
package lua

import (
	"embed"
	"slices"

	"github.com/redis/go-redis/v9"
)

//go:embed prelude.lua
var prelude string

//go:embed queue.lua
var queue string

// The top-level definitions of the prelude, and of the prelude followed by
// the queue's helpers: what a script may draw its helpers from.
var (
	preludeDefs = definitions(prelude)
	queueDefs   = definitions(prelude + "\n" + queue)
)

//go:embed publish.lua
var publish string

// Publish publishes a message on a lock's channel (see publish.lua).
var Publish = Script(publish)

// Script returns the script made of the prelude and src: of the prelude,
// the definitions src uses, directly or not. Run it with Script.Run
// (EVALSHA, falling back to EVAL on NOSCRIPT).
func Script(src string) *redis.Script {
	return redis.NewScript(assemble(preludeDefs, src))
}

// assemble returns body preceded by the definitions of defs it uses.
func assemble(defs []definition, body string) string {
	return needed(defs, body) + "\n" + body
}

// Loader returns the loader of a kind's scripts: each is the prelude, the
// kind's common file of fsys (its shared definitions) and the named file;
// of the prelude and the common file, the definitions the named file uses
// (see Load).
func Loader(fsys embed.FS, common string) func(name string) *redis.Script {
	return func(name string) *redis.Script { return Load(fsys, common, name) }
}

// QueueLoader is Loader for a kind whose waiters wait in a FIFO queue: each
// script is the named file after what it uses of the prelude, the queue
// helpers of queue.lua and the kind's common file of fsys.
func QueueLoader(fsys embed.FS, common string) func(name string) *redis.Script {
	return func(name string) *redis.Script { return load(queueDefs, fsys, common, name) }
}

// Load returns the script made of the prelude and the named files of
// fsys, in order: a kind's shared definitions, say, then one operation.
// Every file but the last is a library, as the prelude is: top-level
// locals only (see definitions). Of the libraries, the script carries
// only the definitions the last file uses, directly or not. The files are
// embedded, so a missing one, or a library with other top-level code, is
// a build mistake: it panics.
func Load(fsys embed.FS, names ...string) *redis.Script {
	return load(preludeDefs, fsys, names...)
}

// load returns the script of source(defs, fsys, names...).
func load(defs []definition, fsys embed.FS, names ...string) *redis.Script {
	return redis.NewScript(source(defs, fsys, names...))
}

// source returns the last named file of fsys, preceded by the definitions
// it uses of defs and of the other named files, in order.
func source(defs []definition, fsys embed.FS, names ...string) string {
	read := func(name string) string {
		b, err := fsys.ReadFile(name)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	last := len(names) - 1
	for _, lib := range names[:last] {
		defs = slices.Concat(defs, definitions(read(lib)+"\n"))
	}
	return assemble(defs, read(names[last]))
}
