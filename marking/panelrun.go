package marking

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/examtui/examtui/sessions"
)

// SavePanelRun stores a run of the model panel on a session (result: the panel's result, as
// JSON) under the store's identity, as evidence: `marks show` and the marking console show it,
// and a lock covers it. Refused once the session is locked.
func SavePanelRun(ctx context.Context, st *sessions.Store, sessionID string, result any, at time.Time) (sessions.PanelRun, error) {
	who, err := st.Identity(ctx)
	if err != nil {
		return sessions.PanelRun{}, err
	}
	enc, err := json.Marshal(result)
	if err != nil {
		return sessions.PanelRun{}, fmt.Errorf("panel run of %s: %w", sessionID, err)
	}
	r := sessions.PanelRun{SessionID: sessionID, RunBy: who, At: at.UTC(), Result: enc}
	if err := st.PutPanelRun(ctx, &r); err != nil {
		return sessions.PanelRun{}, err
	}
	return r, nil
}
