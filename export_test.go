package lockkit

import "time"

// SetWorkIdle sets how long the goroutines of c's Go wait for their next
// f, for a test that must not see them end while it looks at them.
func SetWorkIdle(c *Client, d time.Duration) { c.idle = d }

// WaitingForWork returns how many goroutines of c's Go wait for an f.
func WaitingForWork(c *Client) int {
	c.bgMu.Lock()
	defer c.bgMu.Unlock()
	return len(c.bgFree)
}
