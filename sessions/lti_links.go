package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// migrateV15 adds lti_links: which exam a course's resource link runs when the link names
// none itself (an instructor chose it on the tool's page). Course data: no session, no person.
func migrateV15(ctx context.Context, tx *sqlTx) error {
	_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS lti_links (
	issuer TEXT NOT NULL,
	deployment_id TEXT NOT NULL,
	resource_link TEXT NOT NULL,
	exam TEXT NOT NULL,
	tied_ns BIGINT NOT NULL,
	PRIMARY KEY (issuer, deployment_id, resource_link)
)`)
	return err
}

// LTILink is a course's resource link on one platform and deployment.
type LTILink struct {
	Issuer, DeploymentID, ResourceLink string
}

// TieLTILink ties link to exam. A link is tied once: tying it again to the same exam is a
// no-op, to another is ErrLinkTied (learners may already have rooms of the first).
func (s *Store) TieLTILink(ctx context.Context, link LTILink, exam string, at time.Time) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if link.Issuer == "" || link.ResourceLink == "" || exam == "" {
		return fmt.Errorf("tie an LTI link: issuer, resource link and exam are required")
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO lti_links (issuer, deployment_id, resource_link, exam, tied_ns)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (issuer, deployment_id, resource_link) DO NOTHING`,
		link.Issuer, link.DeploymentID, link.ResourceLink, exam, at.UnixNano()); err != nil {
		return fmt.Errorf("tie an LTI link: %w", err)
	}
	got, err := s.LTILinkExam(ctx, link)
	if err != nil {
		return err
	}
	if got != exam {
		return fmt.Errorf("%w (%s)", ErrLinkTied, got)
	}
	return nil
}

// LTILinkExam returns the exam link is tied to, or ErrNoLTILink.
func (s *Store) LTILinkExam(ctx context.Context, link LTILink) (string, error) {
	if err := s.checkOpen(); err != nil {
		return "", err
	}
	var exam string
	err := s.db.QueryRowContext(ctx, `SELECT exam FROM lti_links WHERE issuer = ? AND deployment_id = ? AND resource_link = ?`,
		link.Issuer, link.DeploymentID, link.ResourceLink).Scan(&exam)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNoLTILink
	}
	if err != nil {
		return "", fmt.Errorf("read an LTI link's exam: %w", err)
	}
	return exam, nil
}
