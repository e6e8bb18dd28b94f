package lti

import (
	"sync"
	"time"
)

// stateTTL is how long a login may take between the redirect to the platform and the launch.
const stateTTL = 10 * time.Minute

// maxStates bounds the logins awaiting their launch, so a flood of logins cannot fill memory.
const maxStates = 10000

// pending is one login awaiting its launch: the nonce the id_token must carry, for whom.
type pending struct {
	nonce    string
	issuer   string
	clientID string
	// storageTarget is the platform's storage frame (lti_storage_target) when the login was
	// started with platform storage: a launch without the state cookie may then prove the
	// state from there (storage.go).
	storageTarget string
	// authOrigin is the origin of the platform's authorization URL: its storage frame's.
	authOrigin string
	expires    time.Time
}

// stateStore keeps the logins awaiting their launch and the nonces already used; both are
// single-use and expire.
type stateStore struct {
	now  func() time.Time
	mu   sync.Mutex
	open map[string]pending   // by state
	used map[string]time.Time // nonce → when it may be forgotten
}

func newStateStore(now func() time.Time) *stateStore {
	return &stateStore{now: now, open: map[string]pending{}, used: map[string]time.Time{}}
}

// add records a login; false when too many are open.
func (s *stateStore) add(state string, p pending) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	if len(s.open) >= maxStates {
		return false
	}
	p.expires = s.now().Add(stateTTL)
	s.open[state] = p
	return true
}

// take removes and returns the login of state.
func (s *stateStore) take(state string) (pending, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.open[state]
	delete(s.open, state)
	if ok && s.now().After(p.expires) {
		return pending{}, false
	}
	return p, ok
}

// peek returns the login of state without using it up.
func (s *stateStore) peek(state string) (pending, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.open[state]
	if !ok || s.now().After(p.expires) {
		return pending{}, false
	}
	return p, true
}

// useNonce marks nonce used; false when it was used before.
func (s *stateStore) useNonce(nonce string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.used[nonce]; ok {
		return false
	}
	s.used[nonce] = s.now().Add(2 * stateTTL)
	return true
}

func (s *stateStore) sweep() {
	now := s.now()
	for k, p := range s.open {
		if now.After(p.expires) {
			delete(s.open, k)
		}
	}
	for k, t := range s.used {
		if now.After(t) {
			delete(s.used, k)
		}
	}
}
