package sessions

import (
	"errors"
	"os"
)

// removeLockFile deletes the lock file of a session whose end is committed, so locks/ does not
// keep one file per session forever. It runs while the flock is still held: nobody can be
// waiting on the file, and an ended session is never locked again (Journal refuses it; Delete
// and the interrupted-session sweep recreate the file if they need it).
func (j *Journal) removeLockFile() {
	if _, ok := j.lock.(*ownerLock); !ok {
		return // a PostgreSQL lease leaves no file behind
	}
	if err := os.Remove(j.store.lockPath(j.id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		j.store.log.Warn("remove lock file", "session", j.id, "err", err)
	}
}
