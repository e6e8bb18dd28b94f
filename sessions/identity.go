package sessions

import (
	"context"
	"fmt"
	"os/user"
)

// Identity is who is using the store, as the store itself knows it, never as a flag claims:
// on PostgreSQL the database role that connected (session_user, which SET ROLE cannot change),
// on SQLite — one person's machine — the operating-system account running examtui. Marking,
// the access log and deletions record this name.
func (s *Store) Identity(ctx context.Context) (string, error) {
	if s.engine == EnginePostgres {
		var who string
		if err := s.db.QueryRowContext(ctx, `SELECT session_user`).Scan(&who); err != nil {
			return "", fmt.Errorf("store identity: %w", err)
		}
		return who, nil
	}
	if s.cfg.localUser != "" {
		return s.cfg.localUser, nil
	}
	u, err := user.Current()
	if err != nil {
		return "", fmt.Errorf("store identity: the operating-system account: %w", err)
	}
	return u.Username, nil
}
