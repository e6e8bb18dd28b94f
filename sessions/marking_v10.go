package sessions

import (
	"context"
)

// migrateV10 adds the marking roster, the candidate roster and a session's candidate id (both
// engines) and, on PostgreSQL, the row-level security that makes blind double marking a
// property of the database rather than of examtui: see pgMarkingPolicies.
func migrateV10(ctx context.Context, tx *sqlTx) error {
	return tx.execAll(ctx,
		`CREATE TABLE exam_roster (
			exam_id  TEXT NOT NULL,
			name     TEXT NOT NULL,
			role     TEXT NOT NULL,
			added_by TEXT NOT NULL,
			at_ns    BIGINT NOT NULL,
			PRIMARY KEY (exam_id, name, role))`,
		`CREATE TABLE candidates (
			candidate_id TEXT PRIMARY KEY,
			name         TEXT NOT NULL DEFAULT '',
			email        TEXT NOT NULL DEFAULT '',
			username     TEXT NOT NULL DEFAULT '',
			sis_user_id  TEXT NOT NULL DEFAULT '',
			sis_login_id TEXT NOT NULL DEFAULT '',
			lms_user_id  TEXT NOT NULL DEFAULT '',
			section      TEXT NOT NULL DEFAULT '',
			imported_ns  BIGINT NOT NULL)`,
		`ALTER TABLE sessions ADD COLUMN candidate_id TEXT NOT NULL DEFAULT ''`,
	)
}

func pgMigrateV10(ctx context.Context, tx *sqlTx) error {
	if err := migrateV10(ctx, tx); err != nil {
		return err
	}
	return tx.execAll(ctx, pgMarkingPolicies...)
}

// pgMarkingPolicies are the PostgreSQL functions and row-level security policies of marking.
// The store's owner (who created the tables) is not subject to them; every other role is:
//
//   - a mark is readable by its marker; by another marker of the session only once they have
//     marked that criterion themselves; by everybody once the session is locked; by a
//     moderator of the exam who has not marked the session, and (when the moderator is on the
//     exam's marker roster too) only once the session has all the markers it needs;
//   - a role writes only marks under its own name, and only as a marker of the exam;
//   - a final mark (adjudication) is written only by a moderator of the exam who did not mark
//     the session; a lock only by a moderator, or by a marker when the exam needs one marker.
//
// The helper functions run as the owner (SECURITY DEFINER) so a policy on marks can ask about
// other rows of marks; they read session_user, which neither SECURITY DEFINER nor SET ROLE
// changes, so a role cannot pose as another.
var pgMarkingPolicies = []string{
	`CREATE FUNCTION examtui_has_role(sid TEXT, want TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE SECURITY DEFINER
		SET search_path FROM CURRENT AS $$
		SELECT EXISTS (SELECT 1 FROM exam_roster r JOIN sessions s ON s.exam_id = r.exam_id
			WHERE s.id = sid AND r.name = session_user AND r.role = want) $$`,
	`CREATE FUNCTION examtui_marked(sid TEXT, crit TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE SECURITY DEFINER
		SET search_path FROM CURRENT AS $$
		SELECT EXISTS (SELECT 1 FROM marks WHERE session_id = sid AND marker = session_user
			AND (crit IS NULL OR criterion = crit)) $$`,
	`CREATE FUNCTION examtui_locked(sid TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE SECURITY DEFINER
		SET search_path FROM CURRENT AS $$ SELECT EXISTS (SELECT 1 FROM mark_locks WHERE session_id = sid) $$`,
	// The markers a session's exam needs (marking.markers in the compiled exam, default 1).
	`CREATE FUNCTION examtui_markers_needed(sid TEXT) RETURNS INTEGER LANGUAGE sql STABLE SECURITY DEFINER
		SET search_path FROM CURRENT AS $$
		SELECT COALESCE((e.exam_json::jsonb #>> '{marking,markers}')::int, 1)
		FROM sessions s JOIN exams e ON e.sha256 = s.exam_sha256 WHERE s.id = sid $$`,
	`CREATE FUNCTION examtui_marking_complete(sid TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE SECURITY DEFINER
		SET search_path FROM CURRENT AS $$
		SELECT (SELECT COUNT(DISTINCT marker) FROM marks WHERE session_id = sid) >= examtui_markers_needed(sid) $$`,
	// A moderator may see a session's marks to adjudicate it: never one they marked, and a
	// moderator who also marks this exam only once the session's markers are all in.
	`CREATE FUNCTION examtui_moderates(sid TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE SECURITY DEFINER
		SET search_path FROM CURRENT AS $$
		SELECT examtui_has_role(sid, 'moderator') AND NOT examtui_marked(sid, NULL)
			AND (NOT examtui_has_role(sid, 'marker') OR examtui_marking_complete(sid)) $$`,

	// How many markers marked each criterion of a session, never who or what: a blind marker
	// may know a level is waiting for them to compare with.
	`CREATE FUNCTION examtui_mark_counts(sid TEXT) RETURNS TABLE (criterion TEXT, n BIGINT) LANGUAGE sql STABLE
		SECURITY DEFINER SET search_path FROM CURRENT AS $$
		SELECT criterion, COUNT(*) FROM marks WHERE session_id = sid GROUP BY criterion $$`,

	`ALTER TABLE marks ENABLE ROW LEVEL SECURITY`,
	`CREATE POLICY marks_read ON marks FOR SELECT USING (marker = session_user
		OR examtui_marked(session_id, criterion) OR examtui_locked(session_id) OR examtui_moderates(session_id))`,
	`CREATE POLICY marks_insert ON marks FOR INSERT WITH CHECK (marker = session_user AND examtui_has_role(session_id, 'marker'))`,
	`CREATE POLICY marks_update ON marks FOR UPDATE USING (marker = session_user)
		WITH CHECK (marker = session_user AND examtui_has_role(session_id, 'marker'))`,

	`ALTER TABLE final_marks ENABLE ROW LEVEL SECURITY`,
	`CREATE POLICY final_read ON final_marks FOR SELECT USING (marker = session_user
		OR examtui_marked(session_id, criterion) OR examtui_locked(session_id) OR examtui_moderates(session_id))`,
	`CREATE POLICY final_insert ON final_marks FOR INSERT WITH CHECK (marker = session_user AND examtui_moderates(session_id))`,
	`CREATE POLICY final_update ON final_marks FOR UPDATE USING (examtui_moderates(session_id))
		WITH CHECK (marker = session_user AND examtui_moderates(session_id))`,

	`ALTER TABLE mark_locks ENABLE ROW LEVEL SECURITY`,
	`CREATE POLICY locks_read ON mark_locks FOR SELECT USING (true)`,
	`CREATE POLICY locks_insert ON mark_locks FOR INSERT WITH CHECK (marker = session_user
		AND (examtui_has_role(session_id, 'moderator')
			OR (examtui_has_role(session_id, 'marker') AND examtui_markers_needed(session_id) = 1)))`,
}
