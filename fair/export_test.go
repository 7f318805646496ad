package fair

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/lua"
)

// ScriptName returns the name of the fair-lock script cmd runs ("acquire",
// "release", "renew", "undo", "leave" or "force"), or "" when cmd runs none
// of them. It recognises both EVALSHA and the EVAL go-redis falls back to.
func ScriptName(cmd redis.Cmder) string {
	args := cmd.Args()
	if len(args) < 2 {
		return ""
	}
	var sha string
	switch strings.ToLower(cmd.Name()) {
	case "evalsha", "evalsha_ro":
		sha = fmt.Sprint(args[1])
	case "eval", "eval_ro":
		sum := sha1.Sum([]byte(fmt.Sprint(args[1])))
		sha = hex.EncodeToString(sum[:])
	default:
		return ""
	}
	for name, s := range map[string]*redis.Script{
		"acquire": acquireScript, "release": releaseScript, "renew": lua.Mutex.Renew,
		"undo": undoScript, "leave": leaveScript, "force": forceScript,
	} {
		if s.Hash() == sha {
			return name
		}
	}
	return ""
}
