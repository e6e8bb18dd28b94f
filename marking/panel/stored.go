package panel

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/examtui/examtui/sessions"
)

// Latest is the session's last stored run of the panel (marking.SavePanelRun); nil when none
// ran.
func Latest(ctx context.Context, st *sessions.Store, id string) (*Result, error) {
	runs, err := st.PanelRuns(ctx, id)
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	last := runs[len(runs)-1]
	var r Result
	if err := json.Unmarshal(last.Result, &r); err != nil {
		return nil, fmt.Errorf("session %s: panel run %d: %w", id, last.Seq, err)
	}
	return &r, nil
}
