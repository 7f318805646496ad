package core

import (
	"context"
	"encoding/json"
	"os"
	"time"

	"github.com/lockkit/lockkit/internal/lua"
)

// HolderInfo is what WithHolderInfo stores beside a hold.
type HolderInfo struct {
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
}

// storeInfo stores who holds the fresh hold with token beside it, when the
// lock value asks for it. It is best effort: the hold stands either way.
func (r *Holder) storeInfo(ctx context.Context, token int64, since time.Time) {
	if !r.cfg.HolderInfo || len(r.spec.Keys) == 0 {
		return
	}
	host, _ := os.Hostname()
	b, err := json.Marshal(HolderInfo{Host: host, PID: os.Getpid(), Since: since.UTC()})
	if err != nil {
		return
	}
	c := r.cfg.Client
	_, _ = Call(ctx, c, func(ctx context.Context) (int64, error) {
		return lua.Info.Run(ctx, c.Redis(), r.spec.Keys[:1], r.spec.Hold, token, string(b)).Int64()
	}, nil)
}
