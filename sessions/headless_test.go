package sessions

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestRecordRealRun records the example rehearsal played by the real controller and offline
// examiner through the journal, then reads it back every way the store offers.
func TestRecordRealRun(t *testing.T) { forEachEngine(t, testRecordRealRun) }

func testRecordRealRun(t *testing.T, eng testEngine) {
	ctx := context.Background()
	script, exam := runtimetest.Rehearsal(t)
	st := eng.open(t)
	sess := createSession(t, st, Meta{Exam: exam, Candidate: "Priya", Examiner: "offline", Input: runtime.SourceTyped,
		SpecPath: "examples/hotel-breakfast.yaml", StartedAt: headless.DefaultStart})
	var seen recorder
	// WithWaitCommit: the headless run delivers to its own recorder right after Publish.
	j := openJournal(t, st, sess.ID, WithSubscribers(&seen), WithWaitCommit())
	res, err := headless.Run(ctx, script, headless.Options{Sink: j, SessionID: sess.ID, Start: headless.DefaultStart})
	if err != nil {
		t.Fatal(err)
	}
	closeJournal(t, j)
	stored := loadEvents(t, st, sess.ID)
	if len(stored) < 20 || len(seen.Events()) != len(stored) {
		t.Fatalf("stored %d events, delivered %d", len(stored), len(seen.Events()))
	}
	got := getSession(t, st, sess.ID)
	if got.Status() != StatusCompleted || got.EvidenceCount < 4 {
		t.Errorf("recorded run: status %v, evidence %d (run result %+v)", got.Status(), got.EvidenceCount, res)
	}
	sum, err := Summarize(got, stored)
	if err != nil {
		t.Fatal(err)
	}
	var visited []string
	for _, v := range sum.Nodes {
		visited = append(visited, v.NodeID)
	}
	if strings.Join(visited, ",") != "welcome,scenario-hotel-breakfast,scenario-staff-rota,wrapup" {
		t.Errorf("visited %v", visited)
	}
	if len(sum.Commands) == 0 || sum.Commands[0].Command != string(runtime.CmdRepeat) {
		t.Errorf("commands %+v, want a repeat", sum.Commands)
	}
	var buf bytes.Buffer
	if err := st.Export(ctx, &buf, sess.ID, FormatRunResult, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if problems := ValidateArtifact(buf.Bytes()); len(problems) > 0 {
		t.Errorf("runresult of a real run is invalid: %v", problems)
	}
	// Replay at 16× with gaps capped at 1 ms finishes at once and gives back the same stream.
	p, err := NewPlayer(st.Events(ctx, sess.ID, 1), WithSpeed(16), WithGapCap(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := p.Run(ctx, func(ev runtime.Event) error {
		if ev.Seq != stored[n].Seq || string(ev.Payload) != string(stored[n].Payload) {
			t.Fatalf("replay differs at seq %d", ev.Seq)
		}
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	// The exam_completed recovery would rebuild (had the process died after the terminal
	// exam_state) says what the real controller's says, but for its reason.
	last := stored[len(stored)-1]
	terminal := stored[len(stored)-2]
	if last.Event != runtime.EventExamCompleted || terminal.Event != runtime.EventExamState {
		t.Fatalf("the run ends with %s, %s", terminal.Event, last.Event)
	}
	rebuilt, err := recoveredCompletion(got, stored[:len(stored)-1], terminal)
	if err != nil {
		t.Fatal(err)
	}
	if rebuilt.Seq != last.Seq || !rebuilt.Timestamp.Equal(terminal.Timestamp) {
		t.Errorf("rebuilt exam_completed at seq %d %v", rebuilt.Seq, rebuilt.Timestamp)
	}
	rp, _ := rebuilt.Decode()
	op, _ := last.Decode()
	r, o := rp.(*runtime.ExamCompletedPayload), op.(*runtime.ExamCompletedPayload)
	if r.State != o.State || !slices.Equal(r.NodesVisited, o.NodesVisited) || !maps.Equal(r.Evidence, o.Evidence) ||
		!maps.Equal(r.Coverage, o.Coverage) {
		t.Errorf("rebuilt exam_completed %+v\nthe controller's  %+v", r, o)
	}
}
