package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// copiedOwnWay are the tables CopySessions does not copy row by row from the catalog: the
// session rows, their events and compiled exams (copySession, whole per session), and each
// store's own layout version. Every other table of the source is copied (copyTables), so a
// table a later schema adds is copied too; TestCopyCoversEveryTable keeps this list honest.
var copiedOwnWay = map[string]string{
	"sessions":       "one transaction per session with its events (copySession)",
	"events":         "with their session (copySession)",
	"exams":          "with the sessions that use them (copySession)",
	"schema_version": "each store's own layout version",
}

// errAccessLogDiverged is the refusal to merge two access logs whose entries differ at the
// same place in the chain.
var errAccessLogDiverged = errors.New("the destination's access log holds other entries at the same places: the logs cannot be merged without breaking the hash chain")

// copyTables copies the rows of every table of from but those copiedOwnWay into to, keeping
// rows to already holds (by primary key): marks, final marks and locks, the marking and
// candidate rosters, join codes, commands, variant draws, LMS launches and scores, panel
// runs, the access log, and any table added later. Rows of a session (a session_id column)
// are copied only for the sessions in copied, the ones the destination now holds; the access
// log is copied whole, as its hash chain needs, and refused with errAccessLogDiverged when the
// destination's entries differ from the source's at the same sequence numbers. It returns the
// rows written per table.
func copyTables(ctx context.Context, from, to *Store, copied map[string]bool) (map[string]int64, error) {
	src, err := from.tableColumns(ctx)
	if err != nil {
		return nil, err
	}
	dst, err := to.tableColumns(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, table := range slices.Sorted(maps.Keys(src)) {
		if copiedOwnWay[table] != "" {
			continue
		}
		var cols []string
		for _, c := range src[table] {
			if slices.Contains(dst[table], c) {
				cols = append(cols, c)
			}
		}
		if len(cols) < len(src[table]) {
			return out, fmt.Errorf("copy table %s: the destination lacks columns of it (has %v, the source %v)", table, dst[table], src[table])
		}
		n, err := copyTable(ctx, from, to, table, cols, copied)
		if err != nil {
			return out, fmt.Errorf("copy table %s: %w", table, err)
		}
		if n > 0 {
			out[table] = n
		}
	}
	return out, nil
}

// copyTable copies one table's rows (see copyTables) in one transaction.
func copyTable(ctx context.Context, from, to *Store, table string, cols []string, copied map[string]bool) (int64, error) {
	rows, err := readRows(ctx, from.db.QueryContext, `SELECT `+strings.Join(cols, ", ")+` FROM `+table)
	if err != nil {
		return 0, err
	}
	if i := slices.Index(cols, "session_id"); i >= 0 && table != "access_log" {
		rows = slices.DeleteFunc(rows, func(r []any) bool { return !copied[fmt.Sprint(r[i])] })
	}
	if table == "access_log" {
		if err := checkAccessLogMerge(ctx, to, cols, rows); err != nil {
			return 0, err
		}
	}
	tx, err := to.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	ins := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES (` +
		strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + `) ON CONFLICT DO NOTHING`
	var n int64
	for _, r := range rows {
		res, err := tx.ExecContext(ctx, ins, r...)
		if err != nil {
			return 0, err
		}
		k, _ := res.RowsAffected()
		n += k
	}
	return n, tx.Commit()
}

// checkAccessLogMerge refuses to copy the access log into a destination whose entry at one of
// the source's sequence numbers is another entry (another hash).
func checkAccessLogMerge(ctx context.Context, to *Store, cols []string, rows [][]any) error {
	seqAt, hashAt := slices.Index(cols, "seq"), slices.Index(cols, "hash")
	have, err := readRows(ctx, to.db.QueryContext, `SELECT seq, hash FROM access_log`)
	if err != nil {
		return err
	}
	hashes := map[string]string{}
	for _, r := range have {
		hashes[fmt.Sprint(r[0])] = fmt.Sprint(r[1])
	}
	for _, r := range rows {
		if h, ok := hashes[fmt.Sprint(r[seqAt])]; ok && h != fmt.Sprint(r[hashAt]) {
			return fmt.Errorf("%w (first at seq %v)", errAccessLogDiverged, r[seqAt])
		}
	}
	return nil
}

// readRows reads every row of a query as values.
func readRows(ctx context.Context, query func(context.Context, string, ...any) (*sql.Rows, error), q string) ([][]any, error) {
	rows, err := query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}
