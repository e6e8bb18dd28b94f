//go:build unix

package sessions

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ownerLock is an exclusive flock on a session's lock file. The kernel releases it when the
// owning process dies, however it dies, which is what lets the next Open tell a crashed
// session from a running one without trusting pids (which get reused).
type ownerLock struct {
	f *os.File
}

func acquireLock(path string) (*ownerLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrSessionBusy
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &ownerLock{f: f}, nil
}

func (l *ownerLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor drops the flock
	l.f = nil
	return err
}
