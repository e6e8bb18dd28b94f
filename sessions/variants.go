package sessions

import (
	"context"
	"fmt"

	"github.com/examtui/examtui/runtime"
)

// Balanced variant draws (docs/exam-format.md, "Variants and draws"). A node with draw:
// balanced takes the variant its exam has used least at that node across the store. The counts
// live in their own small table, one row per exam, node and variant, written in the same
// transaction that reads them, before the node_entered event naming the variant is journalled:
// the journal commits events in groups, so counting node_entered events would miss the draws
// of exams entering the node at the same moment.
//
// Concurrent draws never read the same counts: on PostgreSQL each draw takes a transaction-
// scoped advisory lock on its exam and node first (rows that do not exist yet cannot be locked
// with FOR UPDATE); SQLite's write transactions (BEGIN IMMEDIATE) are serialised already.
const variantDrawsSchema = `CREATE TABLE IF NOT EXISTS variant_draws (
	exam_id    TEXT NOT NULL,
	node_id    TEXT NOT NULL,
	variant_id TEXT NOT NULL,
	draws      BIGINT NOT NULL,
	PRIMARY KEY (exam_id, node_id, variant_id)
)`

// migrateV6 adds the variant_draws table (same SQL on both engines).
func migrateV6(ctx context.Context, tx *sqlTx) error {
	_, err := tx.ExecContext(ctx, variantDrawsSchema)
	return err
}

// DrawVariant draws a balanced variant: the least-drawn of req.Variants for req's exam and node
// in this store, ties broken by req.Seed (runtime.LeastUsed), and records the draw. It is the
// store's runtime.VariantCounter.
func (s *Store) DrawVariant(ctx context.Context, req runtime.VariantRequest) (string, error) {
	if err := s.checkOpen(); err != nil {
		return "", err
	}
	if len(req.Variants) == 0 {
		return "", fmt.Errorf("%w: no variants to draw from at node %q", ErrInvalidDraw, req.NodeID)
	}
	v, err := s.drawVariant(ctx, req)
	if err != nil {
		return "", fmt.Errorf("draw a variant of %s/%s: %w", req.ExamID, req.NodeID, err)
	}
	return v, nil
}

func (s *Store) drawVariant(ctx context.Context, req runtime.VariantRequest) (string, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer func() { _ = tx.Rollback() }()
	if s.engine == EnginePostgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(?))`, "examtui.variant_draws:"+req.ExamID+":"+req.NodeID); err != nil {
			return "", err
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT variant_id, draws FROM variant_draws WHERE exam_id = ? AND node_id = ?`, req.ExamID, req.NodeID)
	if err != nil {
		return "", err
	}
	counts := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return "", err
		}
		counts[id] = n
	}
	if err := rows.Close(); err != nil {
		return "", err
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	v := runtime.LeastUsed(counts, req.Variants, req.Seed)
	if _, err := tx.ExecContext(ctx, `INSERT INTO variant_draws (exam_id, node_id, variant_id, draws) VALUES (?, ?, ?, 1)
		ON CONFLICT (exam_id, node_id, variant_id) DO UPDATE SET draws = variant_draws.draws + 1`, req.ExamID, req.NodeID, v); err != nil {
		return "", err
	}
	return v, tx.Commit()
}

// VariantCounts returns how often each variant of an exam's node has been drawn balanced in
// this store (a variant never drawn is absent).
func (s *Store) VariantCounts(ctx context.Context, examID, nodeID string) (map[string]int, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT variant_id, draws FROM variant_draws WHERE exam_id = ? AND node_id = ?`, examID, nodeID)
	if err != nil {
		return nil, fmt.Errorf("variant counts of %s/%s: %w", examID, nodeID, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

var _ runtime.VariantCounter = (*Store)(nil)
