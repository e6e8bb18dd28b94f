package livekit_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/transport/livekit"
)

// TestRoleAttributeWarningOnlyOnChange: the bot, a candidate and an examiner join with their
// roles; the bot logs no "role attribute change ignored" for any of them (it did for every
// one, its own role included, on every job). A participant that gives itself another role is
// still logged.
func TestRoleAttributeWarningOnlyOnChange(t *testing.T) {
	var logs testutil.SyncBuffer
	e := startExam(t, livekit.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	e.dialBoth(t)
	climber := joinHostile(t, e.srv, "climber", "candidate")
	e.waitAudience(t, "climber")
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "role attribute change ignored") && !strings.Contains(line, "identity=climber") {
			t.Errorf("the bot warned about a role nobody changed: %s", line)
		}
	}
	climber.room.LocalParticipant.SetAttributes(map[string]string{livekit.RoleAttribute: "examiner"})
	testutil.Eventually(t, 10*time.Second, func() bool {
		return strings.Contains(logs.String(), "identity=climber new=examiner")
	}, "the self-promotion to be logged")
}
