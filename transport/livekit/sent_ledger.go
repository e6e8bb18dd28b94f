package livekit

import "sync"

// sentLedger remembers which seqs each connection (participant id) was sent, so that a replay
// to a participant skips what that same connection already got: a candidate who joins as the
// exam opens would otherwise get the opening live and again from the join replay, and a client
// that shows every spoken packet would show it twice. A new connection of the same identity
// (a rejoin) has a new id and gets everything again.
type sentLedger struct {
	mu   sync.Mutex
	sent map[string]map[int64]struct{} // participant id → seqs sent to it
}

// has reports whether seq was sent to the connection sid.
func (l *sentLedger) has(sid string, seq int64) bool {
	if sid == "" || seq <= 0 {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.sent[sid][seq]
	return ok
}

// mark records seq as sent to each connection in sids.
func (l *sentLedger) mark(seq int64, sids []string) {
	if seq <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sent == nil {
		l.sent = map[string]map[int64]struct{}{}
	}
	for _, sid := range sids {
		if sid == "" {
			continue
		}
		m := l.sent[sid]
		if m == nil {
			m = map[int64]struct{}{}
			l.sent[sid] = m
		}
		m[seq] = struct{}{}
	}
}

// forget drops a connection that left.
func (l *sentLedger) forget(sid string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.sent, sid)
}
