package redistest

import "github.com/lockkit/lockkit"

// Parts returns the locks whose holds a Lock of l takes: the members of a
// multi-lock (a Locker with Locks), else l itself.
func Parts(l lockkit.Locker) []lockkit.Locker {
	if m, ok := l.(interface{ Locks() []lockkit.Locker }); ok {
		return m.Locks()
	}
	return []lockkit.Locker{l}
}

// LostSignals returns the lost signals of the current holds of l's parts,
// each of which must have one (Lost); call it after Lock.
func LostSignals(l lockkit.Locker) []<-chan struct{} {
	var chs []<-chan struct{}
	for _, p := range Parts(l) {
		chs = append(chs, p.(interface{ Lost() <-chan struct{} }).Lost())
	}
	return chs
}

// Tokens returns the fencing tokens of the current holds of l's parts,
// in the order of Parts, each of which must have one (Token).
func Tokens(l lockkit.Locker) []int64 {
	var ts []int64
	for _, p := range Parts(l) {
		ts = append(ts, p.(interface{ Token() int64 }).Token())
	}
	return ts
}

// Held is what a test needs of a lock it holds: the hold's lost signal
// and fencing token.
type Held interface {
	Lost() <-chan struct{}
	Token() int64
}

// LostOf returns the lost signals of the current holds of hs.
func LostOf(hs []Held) []<-chan struct{} {
	chs := make([]<-chan struct{}, len(hs))
	for i, h := range hs {
		chs[i] = h.Lost()
	}
	return chs
}

// TokensOf returns the fencing tokens of the current holds of hs.
func TokensOf(hs []Held) []int64 {
	ts := make([]int64, len(hs))
	for i, h := range hs {
		ts[i] = h.Token()
	}
	return ts
}
