package app_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// TestSendCommandLinesThroughRoom: an examiner's typed lines (watch --commands) reach a real
// exam bot over a real LiveKit room: a queued instruction, then promote runs it at once; a bad
// line is reported with the grammar's help and reading goes on.
func TestSendCommandLinesThroughRoom(t *testing.T) {
	srv := lktest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	x, rb := apptest.StartDemoBot(ctx, t, srv)
	exr := dial(t, srv, "examiner-typed", livekit.RoleExaminer)
	exEvents := listen(t, exr)
	if err := exr.WaitBot(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() bool { return apptest.HasParticipant(rb.Room, "examiner-typed") }, "the bot to see the examiner")
	var errw testutil.SyncBuffer
	app.SendCommandLines(ctx, strings.NewReader("/queue Ask about the budget.\nexplode\n\npromote\n/say We have five minutes left.\n"), exr, &errw)
	if !strings.Contains(errw.String(), `unknown operator command: "explode"`) || !strings.Contains(errw.String(), "/promote") {
		t.Errorf("the bad line was not reported with the help:\n%s", errw.String())
	}
	promoted := func() bool {
		for _, ev := range exEvents.events() {
			if ev.Event != runtime.EventAdminInstruction {
				continue
			}
			var p struct{ Mode, Status, Text, Sender string }
			if json.Unmarshal(ev.Payload, &p) == nil && p.Status == "promoted" && p.Text == "Ask about the budget." && p.Sender == "examiner-typed" {
				return true
			}
		}
		return false
	}
	testutil.Eventually(t, 20*time.Second, promoted, "the queued instruction to be promoted")
	if n := x.Controller.Snapshot().QueuedAdmin; n != 0 {
		t.Errorf("%d instructions still queued after promote", n)
	}
	// A typed /say reaches the room as a line to say and is spoken word for word.
	said := func() bool {
		for _, ev := range exEvents.events() {
			var p struct{ Source, Text string }
			if ev.Event == runtime.EventSpoken && json.Unmarshal(ev.Payload, &p) == nil &&
				p.Source == runtime.SpokenSay.String() && p.Text == "We have five minutes left." {
				return true
			}
		}
		return false
	}
	testutil.Eventually(t, 20*time.Second, said, "the line to say to be spoken")
}
