package monitor

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

var t0 = time.Date(2026, 6, 12, 10, 0, 0, 0, time.UTC)

// feed builds a session's events from payloads, one second apart from t0, seq from 1.
func feed(t *testing.T, id string, ps ...runtime.Payload) []runtime.Event {
	t.Helper()
	var out []runtime.Event
	for i, p := range ps {
		ev, err := runtime.NewEvent(id, int64(i+1), t0.Add(time.Duration(i)*time.Second), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func kinds(as []Alert) []AlertKind {
	var out []AlertKind
	for _, a := range as {
		out = append(out, a.Kind)
	}
	return out
}

var (
	running = &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady, TotalTimeBudgetSec: 600}
	entered = &runtime.NodeEnteredPayload{NodeID: "n1", Kind: "scenario", TimeBudgetSec: 60,
		Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 3}}
	lowConf = &runtime.RecoveryPayload{Kind: "stt_low_confidence", NodeID: "n1", SignalType: "s"}
)

var (
	joined = &runtime.CandidatePresencePayload{Status: runtime.PresenceJoined, Identity: "cand-1", Present: 1}
	paused = &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress, Reason: "candidate left"}
)

// left is the candidate leaving with n candidates still in the room.
func left(n int) *runtime.CandidatePresencePayload {
	return &runtime.CandidatePresencePayload{Status: runtime.PresenceLeft, Identity: "cand-1", Reason: "connection lost", Present: n}
}

// TestEventAlerts: each alert the event stream raises, from the events that raise it, raised
// once however often its cause repeats.
func TestEventAlerts(t *testing.T) {
	tests := []struct {
		name string
		th   Thresholds
		ps   []runtime.Payload
		want []AlertKind
	}{
		{"quiet exam", Thresholds{}, []runtime.Payload{running, entered}, nil},
		{"distress", Thresholds{}, []runtime.Payload{running, entered,
			&runtime.GuardrailTriggeredPayload{Guardrail: "distress", Action: "transition"}}, []AlertKind{AlertDistress}},
		{"anxiety filter", Thresholds{}, []runtime.Payload{running,
			&runtime.GuardrailTriggeredPayload{Guardrail: "anxiety_neutrality", Action: "replaced"}}, []AlertKind{AlertAnxiety}},
		{"calm support alone", Thresholds{}, []runtime.Payload{running,
			&runtime.RecoveryPayload{Kind: "calm_support", Detail: "anxiety detected"}}, []AlertKind{AlertAnxiety}},
		{"output filter", Thresholds{}, []runtime.Payload{running,
			&runtime.GuardrailTriggeredPayload{Guardrail: "answer_leak", Action: "output_intercepted"},
			&runtime.GuardrailTriggeredPayload{Guardrail: "persona_break", Action: "output_intercepted"}}, []AlertKind{AlertOutputFilter}},
		{"time budget guardrail", Thresholds{}, []runtime.Payload{running, entered,
			&runtime.GuardrailTriggeredPayload{Guardrail: "time_budget", Action: "transition"}}, []AlertKind{AlertOverBudget}},
		{"follow-up limit is routine", Thresholds{}, []runtime.Payload{running,
			&runtime.GuardrailTriggeredPayload{Guardrail: "followup_limit", Action: "transition"}}, nil},
		{"two low-confidence rejections", Thresholds{}, []runtime.Payload{running, entered, lowConf, lowConf}, nil},
		{"three low-confidence rejections", Thresholds{}, []runtime.Payload{running, entered, lowConf, lowConf, lowConf, lowConf},
			[]AlertKind{AlertLowConfidence}},
		{"low confidence counts per node", Thresholds{}, []runtime.Payload{running, entered, lowConf, lowConf, entered, lowConf}, nil},
		{"low confidence threshold 1", Thresholds{LowConfidence: 1}, []runtime.Payload{running, lowConf}, []AlertKind{AlertLowConfidence}},
		{"examiner failed", Thresholds{}, []runtime.Payload{running,
			&runtime.SystemErrorPayload{Code: "examiner_failed", Message: "503"}}, []AlertKind{AlertExaminerError}},
		{"examiner errors threshold 2", Thresholds{ExaminerErrors: 2}, []runtime.Payload{running,
			&runtime.SystemErrorPayload{Code: "observation_invalid"}}, nil},
		{"examiner errors threshold 2 reached", Thresholds{ExaminerErrors: 2}, []runtime.Payload{running,
			&runtime.SystemErrorPayload{Code: "observation_invalid"}, &runtime.RecoveryPayload{Kind: "llm_retry"}},
			[]AlertKind{AlertExaminerError}},
		{"admin failure is not the examiner", Thresholds{}, []runtime.Payload{running,
			&runtime.SystemErrorPayload{Code: "admin_failed"}}, nil},
		{"the candidate left", Thresholds{}, []runtime.Payload{running, joined, left(0), paused},
			[]AlertKind{AlertAway}},
		{"one of two candidates left", Thresholds{}, []runtime.Payload{running, joined, joined, left(1)}, nil},
		{"the candidate left the finished exam", Thresholds{}, []runtime.Payload{running, joined,
			&runtime.ExamCompletedPayload{State: runtime.StateCompleted}, left(0)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBoard(tc.th)
			if err != nil {
				t.Fatal(err)
			}
			var got []Alert
			for _, ev := range feed(t, "s1", tc.ps...) {
				got = append(got, b.Apply(ev)...)
			}
			if !slices.Equal(kinds(got), tc.want) {
				t.Errorf("raised %v, want %v", kinds(got), tc.want)
			}
			if !slices.Equal(kinds(b.Row("s1").Alerts), tc.want) {
				t.Errorf("standing %v, want %v", kinds(b.Row("s1").Alerts), tc.want)
			}
			for _, a := range got {
				if a.SessionID != "s1" || a.Seq == 0 || a.At.IsZero() {
					t.Errorf("alert %+v lacks its session, seq or time", a)
				}
			}
		})
	}
}

// TestAwayClears: the away alert stands while nobody is in the room and clears when the
// candidate comes back, and says who left and why.
func TestAwayClears(t *testing.T) {
	b, err := NewBoard(Thresholds{})
	if err != nil {
		t.Fatal(err)
	}
	rejoined := &runtime.CandidatePresencePayload{Status: runtime.PresenceRejoined, Identity: "cand-1", AwayMs: 4000, Present: 1}
	evs := feed(t, "s1", running, joined, left(0), paused, rejoined)
	var raised []Alert
	for _, ev := range evs[:4] {
		raised = append(raised, b.Apply(ev)...)
	}
	r := b.Row("s1")
	if len(raised) != 1 || raised[0].Kind != AlertAway || raised[0].Detail != "candidate cand-1 left (connection lost)" || raised[0].Seq != 3 {
		t.Fatalf("raised %+v", raised)
	}
	if r.State != RowPaused || !r.Has(AlertAway) {
		t.Fatalf("state %s, alerts %v while nobody is in the room", r.State, kinds(r.Alerts))
	}
	if got := b.Apply(evs[4]); len(got) != 0 || r.Has(AlertAway) {
		t.Fatalf("after the rejoin: raised %v, standing %v", kinds(got), kinds(r.Alerts))
	}
}

// TestTimeAlerts: silent, stalled and over budget come and go with the clock.
func TestTimeAlerts(t *testing.T) {
	b, _ := NewBoard(Thresholds{Silent: 30 * time.Second, Stalled: 2 * time.Minute, OverBudgetGrace: 5 * time.Second})
	e := *entered
	e.DeadlineAt = t0.Add(time.Second + 60*time.Second).Format(time.RFC3339Nano)
	for _, ev := range feed(t, "s1", running, &e) {
		b.Apply(ev)
	}
	r := b.Row("s1")
	if got := kinds(b.Tick(t0.Add(20 * time.Second))); len(got) != 0 {
		t.Fatalf("at 20s: %v", got)
	}
	if got := kinds(b.Tick(t0.Add(40 * time.Second))); !slices.Equal(got, []AlertKind{AlertSilent}) {
		t.Fatalf("at 40s: %v, want silent", got)
	}
	if got := kinds(b.Tick(t0.Add(45 * time.Second))); len(got) != 0 {
		t.Fatalf("silent raised twice: %v", got)
	}
	// The candidate answers: silent clears.
	ans, _ := runtime.NewEvent("s1", 3, t0.Add(50*time.Second), &runtime.TranscriptSegmentPayload{Speaker: "candidate", Text: "hi", IsFinal: true})
	b.Apply(ans)
	if r.Has(AlertSilent) || r.LastCandidate != "hi" {
		t.Fatalf("after an answer: %v, last %q", kinds(r.Alerts), r.LastCandidate)
	}
	// The node's deadline is t0+61s; 5 s grace: over from t0+66s.
	if got := kinds(b.Tick(t0.Add(65 * time.Second))); len(got) != 0 {
		t.Fatalf("at 65s: %v", got)
	}
	if got := kinds(b.Tick(t0.Add(68 * time.Second))); !slices.Equal(got, []AlertKind{AlertOverBudget}) {
		t.Fatalf("at 68s: %v, want over budget", got)
	}
	// Nothing at all for 2 minutes: stalled replaces silent.
	got := kinds(b.Tick(t0.Add(50*time.Second + 2*time.Minute)))
	if !slices.Contains(got, AlertStalled) || r.Has(AlertSilent) {
		t.Fatalf("at 2m50s: raised %v, standing %v; want stalled and not silent", got, kinds(r.Alerts))
	}
	// Any event clears the stall; a pause clears silent and stalled for good.
	pause, _ := runtime.NewEvent("s1", 4, t0.Add(3*time.Minute), &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress})
	b.Apply(pause)
	if got := kinds(b.Tick(t0.Add(time.Hour))); len(got) != 0 || r.Has(AlertStalled) || r.State != RowPaused {
		t.Fatalf("paused: raised %v, standing %v, state %s", got, kinds(r.Alerts), r.State)
	}
}

// TestClocks: budgets read from deadlines, frozen while paused, restated on resuming.
func TestClocks(t *testing.T) {
	b, _ := NewBoard(Thresholds{})
	run := *running
	run.ExamDeadlineAt = t0.Add(600 * time.Second).Format(time.RFC3339Nano)
	e := *entered
	e.DeadlineAt = t0.Add(61 * time.Second).Format(time.RFC3339Nano)
	pause := &runtime.ExamStatePayload{State: runtime.StatePaused, Previous: runtime.StateInProgress}
	for _, ev := range feed(t, "s1", &run, &e) {
		b.Apply(ev)
	}
	r := b.Row("s1")
	r.StartedAt = t0
	if c := r.NodeClock(t0.Add(31 * time.Second)); c.Elapsed != 30*time.Second || c.Budget != time.Minute {
		t.Fatalf("node clock %+v", c)
	}
	ev, _ := runtime.NewEvent("s1", 3, t0.Add(41*time.Second), pause)
	b.Apply(ev)
	if c := r.NodeClock(t0.Add(10 * time.Minute)); c.Elapsed != 40*time.Second {
		t.Fatalf("paused node clock %+v, want 40s", c)
	}
	if c := r.ExamClock(t0.Add(10 * time.Minute)); c.Elapsed != 41*time.Second || c.Budget != 10*time.Minute {
		t.Fatalf("paused exam clock %+v", c)
	}
	// Resumed after 5 minutes: the runtime moved the deadlines by the pause.
	res := &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StatePaused,
		DeadlineAt: t0.Add(61*time.Second + 5*time.Minute).Format(time.RFC3339Nano), ExamDeadlineAt: t0.Add(15 * time.Minute).Format(time.RFC3339Nano)}
	ev, _ = runtime.NewEvent("s1", 4, t0.Add(41*time.Second+5*time.Minute), res)
	b.Apply(ev)
	if c := r.NodeClock(t0.Add(51*time.Second + 5*time.Minute)); c.Elapsed != 50*time.Second || c.Fraction() <= 0.8 {
		t.Fatalf("resumed node clock %+v", c)
	}
}

// TestStatesAndOrder: states from the stream and the store, urgency before start time,
// finished exams in their own section, interrupted ones from before the day left out.
func TestStatesAndOrder(t *testing.T) {
	b, _ := NewBoard(Thresholds{})
	day := t0.Add(-time.Hour)
	meta := func(id string, start time.Time, mod func(*sessions.Session)) {
		s := &sessions.Session{ID: id, Candidate: id, StartedAt: start, State: runtime.StateInProgress}
		if mod != nil {
			mod(s)
		}
		b.Upsert(s)
	}
	meta("calm-early", t0, nil)
	meta("new", t0.Add(5*time.Minute), func(s *sessions.Session) { s.State = runtime.StateCreated })
	meta("calm-late", t0.Add(time.Minute), nil)
	meta("died", t0.Add(2*time.Minute), func(s *sessions.Session) { s.Interrupted = true; s.LastEventAt = t0 })
	meta("died-yesterday", t0.Add(-30*time.Hour), func(s *sessions.Session) { s.Interrupted = true; s.LastEventAt = t0.Add(-30 * time.Hour) })
	meta("done", t0, func(s *sessions.Session) { s.EndedAt = t0.Add(time.Minute); s.State = runtime.StateCompleted })
	meta("done-yesterday", t0.Add(-30*time.Hour), func(s *sessions.Session) {
		s.EndedAt = t0.Add(-29 * time.Hour)
		s.State = runtime.StateCompleted
	})
	for _, ev := range feed(t, "calm-late", running, entered) {
		b.Apply(ev)
	}
	for _, ev := range feed(t, "awaiting", running, entered, &runtime.CommandAcknowledgedPayload{Command: "finish", Accepted: true, Detail: "awaiting confirmation"}) {
		b.Apply(ev)
	}
	for _, ev := range feed(t, "declined", running, entered, &runtime.CommandAcknowledgedPayload{Command: "finish", Accepted: true, Detail: "awaiting confirmation"},
		&runtime.TranscriptSegmentPayload{Speaker: "candidate", Text: "no, let's go on", IsFinal: true}) {
		b.Apply(ev)
	}
	if st := b.Row("declined").State; st != RowInProgress {
		t.Errorf("after the candidate answered the confirmation: %s", st)
	}
	delete(b.rows, "declined")
	for _, ev := range feed(t, "upset", running, &runtime.GuardrailTriggeredPayload{Guardrail: "distress"}) {
		b.Apply(ev)
	}
	b.Row("awaiting").StartedAt, b.Row("upset").StartedAt = t0.Add(3*time.Minute), t0.Add(4*time.Minute)
	live, finished := b.Rows(day)
	var ids []string
	for _, r := range live {
		ids = append(ids, r.SessionID+":"+r.State.String())
	}
	want := []string{"upset:in progress", "died:interrupted", "awaiting:awaiting confirmation", "calm-early:in progress", "calm-late:in progress", "new:starting"}
	if !slices.Equal(ids, want) {
		t.Errorf("live %v\nwant %v", ids, want)
	}
	if len(finished) != 1 || finished[0].SessionID != "done" || finished[0].State != RowCompleted {
		t.Errorf("finished %v", finished)
	}
	// The died row's process came back (resumed): its alert goes.
	b.Upsert(&sessions.Session{ID: "died", Candidate: "died", StartedAt: t0.Add(2 * time.Minute), State: runtime.StateInProgress})
	if b.Row("died").Has(AlertInterrupted) {
		t.Error("a resumed exam still shows interrupted")
	}
}

func TestThresholdsValidate(t *testing.T) {
	if _, err := NewBoard(Thresholds{Silent: -time.Second}); err == nil {
		t.Fatal("a negative threshold was accepted")
	}
	b, err := NewBoard(Thresholds{Stalled: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if th := b.Thresholds(); th.Stalled != time.Second || th.Silent != DefaultThresholds().Silent {
		t.Errorf("thresholds %+v", th)
	}
}

func TestAlertJSON(t *testing.T) {
	a := Alert{Kind: AlertStalled, SessionID: "s1", Candidate: "Ann", Title: "Exam", At: t0, Detail: "no event for 5m0s"}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back["kind"] != "stalled" || back["sessionId"] != "s1" || back["exam"] != "Exam" || back["meaning"] == "" {
		t.Errorf("alert line %s", b)
	}
	for _, k := range AlertKinds {
		if strings.HasPrefix(k.String(), "AlertKind(") || k.Badge() == "?" || k.Explain() == "" {
			t.Errorf("kind %d is missing a name, badge or explanation", int(k))
		}
	}
}

// countingSource wraps a real store and counts the events it hands out.
type countingSource struct {
	*sessions.Store
	read int
}

func (c *countingSource) Events(ctx context.Context, id string, from int64) iter.Seq2[runtime.Event, error] {
	return func(yield func(runtime.Event, error) bool) {
		for ev, err := range c.Store.Events(ctx, id, from) {
			c.read++
			if !yield(ev, err) {
				return
			}
		}
	}
}

// TestFollowIncremental: over a real store, each poll reads only the events that are new, and
// a session created between polls shows up in the next one.
func TestFollowIncremental(t *testing.T) {
	ctx := context.Background()
	st, err := sessions.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	exam := &spec.Exam{ID: "e1", Title: "Exam"}
	src := &countingSource{Store: st}
	f := &follower{src: src, since: t0.Add(-time.Hour), seen: map[string]int64{}, meta: map[string]metaKey{}}
	journals := map[string]*sessions.Journal{}
	publish := func(id string, n int) {
		j := journals[id]
		if j == nil {
			if j, err = st.Journal(ctx, id); err != nil {
				t.Fatal(err)
			}
			journals[id] = j
		}
		for range n {
			ev, err := runtime.NewEvent(id, j.NextSeq(), time.Now(), &runtime.TranscriptSegmentPayload{Speaker: "candidate", Text: "x", IsFinal: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := j.Publish(ev); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Create(ctx, sessions.Meta{ID: "aaaa", Exam: exam}); err != nil {
		t.Fatal(err)
	}
	publish("aaaa", 5)
	u := f.poll(ctx)
	if u.Err != nil || len(u.Sessions) != 1 || len(u.Events) != 5 || src.read != 5 {
		t.Fatalf("first poll: %d sessions, %d events, read %d, err %v", len(u.Sessions), len(u.Events), src.read, u.Err)
	}
	if u = f.poll(ctx); len(u.Sessions) != 0 || len(u.Events) != 0 || src.read != 5 {
		t.Fatalf("idle poll: %d sessions, %d events, read %d", len(u.Sessions), len(u.Events), src.read)
	}
	publish("aaaa", 3)
	if _, err := st.Create(ctx, sessions.Meta{ID: "bbbb", Exam: exam}); err != nil {
		t.Fatal(err)
	}
	u = f.poll(ctx)
	if len(u.Events) != 3 || u.Events[0].Seq != 6 || src.read != 8 {
		t.Fatalf("third poll: %d events from seq %d, read %d", len(u.Events), u.Events[0].Seq, src.read)
	}
	if !slices.ContainsFunc(u.Sessions, func(s *sessions.Session) bool { return s.ID == "bbbb" }) {
		t.Fatal("the new session did not show")
	}
}

// FuzzApply: whatever an exam's event stream carries (the payload text comes from LLMs and
// candidates), the board neither panics nor lets control characters into what it shows.
func FuzzApply(f *testing.F) {
	f.Add("guardrail_triggered", `{"guardrail":"distress","originalText":"i give up\u001b[2J"}`)
	f.Add("transcript_segment", `{"speaker":"candidate","text":"hi\r\nthere","isFinal":true}`)
	f.Add("exam_state", `{"state":"paused"}`)
	f.Add("node_entered", `{"nodeId":"n\u0007","timeBudgetSec":-5,"deadlineAt":"garbage"}`)
	f.Add("recovery_event", `{"kind":"stt_low_confidence"}`)
	f.Fuzz(func(t *testing.T, typ, payload string) {
		b, _ := NewBoard(Thresholds{LowConfidence: 1})
		ev := runtime.Event{Event: runtime.EventType(typ), SessionID: "s1", Seq: 1, Timestamp: t0, Payload: json.RawMessage(payload)}
		alerts := b.Apply(ev)
		alerts = append(alerts, b.Tick(t0.Add(time.Hour))...)
		r := b.Row("s1")
		texts := []string{r.NodeID, r.LastCandidate}
		for _, a := range alerts {
			texts = append(texts, a.Detail, a.NodeID)
		}
		for _, s := range texts {
			if strings.ContainsAny(s, "\x1b\r\n\a") {
				t.Fatalf("control characters reached the board: %q", s)
			}
		}
		_ = r.NodeClock(t0)
		_ = r.ExamClock(t0)
	})
}

// TestClocksAfterRestart: an exam whose process stopped and was resumed minutes later. The
// runtime does not count the downtime; the board, reading only the events, shows the same node
// and exam clocks as the resumed controller.
func TestClocksAfterRestart(t *testing.T) {
	events, snap, now := runtimetest.Restarted(t, t0, 7*time.Minute, 15*time.Second)
	b, _ := NewBoard(Thresholds{})
	for _, ev := range events {
		b.Apply(ev)
	}
	r := b.Row(events[0].SessionID)
	if got := r.NodeClock(now); got.Elapsed != snap.NodeElapsed || got.Budget == 0 {
		t.Errorf("node clock %+v, the runtime's %s", got, snap.NodeElapsed)
	}
	if got := r.ExamClock(now); got.Elapsed != snap.ExamElapsed || got.Budget == 0 {
		t.Errorf("exam clock %+v, the runtime's %s", got, snap.ExamElapsed)
	}
}
