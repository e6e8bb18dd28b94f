package controlhttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/controlhttp"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

const parityToken = "parity-token-not-a-secret"

// candidateTurn is one turn of a headless run as the controller received it.
type candidateTurn struct {
	text        string
	confidence  float64
	durationMs  int64
	observation json.RawMessage // nil: the examiner was not asked
}

// excludedFromParity are the scripts whose steps a Pipecat bot cannot express, with why.
func excludedFromParity(s *headless.Script) string {
	for _, st := range s.Turns {
		if st.Admin != nil && st.Admin.Mode == runtime.AdminQueued.String() {
			return "a queued instruction is given to the examiner with the next turn, and a Pipecat bot's model " +
				"never sees instructions: it stays queued until an immediate one chains it (TestRelayInstructions)"
		}
	}
	return ""
}

// TestPipecatParity: every example and headless test script with candidate turns, run
// headless (offline examiner, virtual clock), then replayed through the real Python module
// (contrib/pipecat/examtui_flows.py, driven like a Pipecat bot) against the real controller
// HTTP server, whose sessions run on a virtual clock this driver advances exactly as the
// headless run did. The two sessions' decision traces must be equal.
func TestPipecatParity(t *testing.T) {
	py := python3(t)
	compared := 0
	for _, cs := range runtimetest.CandidateScripts(t, "../../../..") {
		p, s := cs.Path, cs.Script
		if why := excludedFromParity(s); why != "" {
			t.Logf("%s: excluded: %s", p, why)
			continue
		}
		compared++
		t.Run(filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p), func(t *testing.T) {
			n := parityOne(t, py, s)
			t.Logf("%s: %d decisions compared", p, n)
		})
	}
	if compared < 15 {
		t.Fatalf("only %d scripts compared", compared)
	}
}

func parityOne(t *testing.T, py string, s *headless.Script) int {
	ctx := context.Background()
	start := headless.StartFor(s, time.Time{})
	rec := &runtime.Recorder{}
	if _, err := headless.Run(ctx, s, headless.Options{Sink: runtime.NewFanout(rec), Start: start}); err != nil {
		t.Fatal(err)
	}
	want, err := runtime.DecisionTrace(rec.Events())
	if err != nil {
		t.Fatal(err)
	}
	turns := candidateTurns(t, rec.Events())

	exam, err := s.CompileSpec()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := spec.ExportPipecatFlows(exam)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	docPath := filepath.Join(dir, "exam.flows.json")
	if err := os.WriteFile(docPath, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := app.OpenStore(ctx, filepath.Join(dir, "store"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	vc := runtime.NewVirtualClock(start)
	srv, err := controlhttp.New(store, app.Options{SpecPath: s.SpecPath(), ManualTicks: true,
		ControllerOptions: append([]runtime.Option{runtime.WithClock(vc)}, s.ControllerOptions()...)}, controlhttp.WithToken(parityToken))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	t.Cleanup(func() { srv.Close() })

	bot := startBot(t, py, docPath, hs.URL)
	first := bot.send(t, map[string]any{"op": "start"})
	id, _ := first["sessionId"].(string)
	x, ok := srv.Exam(id)
	if !ok {
		t.Fatalf("session %q not open on the server: %v", id, first)
	}
	terminal := func() bool { return x.Controller.Snapshot().State.Terminal() }
	// advance is headless's: one-second ticks, so time-driven decisions happen when due.
	advance := func(d time.Duration) {
		for d > 0 && !terminal() {
			step := min(d, time.Second)
			vc.Advance(step)
			d -= step
			if err := x.Controller.Tick(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	next := 0
	submit := func() {
		if next >= len(turns) {
			t.Fatalf("the headless run had %d turns; the script asks for more", len(turns))
		}
		tr := turns[next]
		next++
		step := map[string]any{"op": "turn", "text": tr.text, "confidence": tr.confidence, "durationMs": tr.durationMs}
		if tr.observation != nil {
			step["observation"] = tr.observation
		}
		out := bot.send(t, step)
		if out["error"] != nil {
			t.Logf("turn %d refused: %v", next, out["error"])
			return
		}
		// The bot's flow is where the controller is: its next node is the current one.
		if now := x.Controller.Snapshot().NodeID; out["node"] != now {
			t.Fatalf("turn %d: the bot moved to %v, the controller is in %s", next, out["node"], now)
		}
	}
	for _, st := range s.Turns {
		if terminal() {
			break
		}
		switch {
		case st.Say != nil || st.Interrupt != nil:
			advance(headless.DefaultTurnGap)
			if terminal() {
				break
			}
			vc.Advance(time.Duration(turns[next].durationMs) * time.Millisecond)
			submit()
		case st.Silence != nil:
			advance(time.Duration(*st.Silence * float64(time.Second)))
			if !terminal() {
				submit()
			}
		case st.Wait != nil:
			advance(time.Duration(*st.Wait * float64(time.Second)))
		case st.Control != nil:
			operatorCommand(t, store, sessions.Command{SessionID: id, Kind: sessions.CommandControl, Action: *st.Control, Sender: "script"})
		case st.Admin != nil:
			operatorCommand(t, store, sessions.Command{SessionID: id, Kind: sessions.CommandAdmin, Action: st.Admin.Mode, Text: st.Admin.Text, Sender: st.Admin.Sender})
		}
	}
	bot.close(t)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := runtime.DecisionTrace(storedEvents(t, store, id))
	if err != nil {
		t.Fatal(err)
	}
	if d := runtime.TraceDiff(want, got); d != "" {
		t.Fatalf("the Pipecat session decided otherwise than the headless run:\n%s", d)
	}
	return len(want)
}

// candidateTurns reads each candidate turn of a run: its final transcript segment and the
// examiner's raw observation of that turn (none when the controller did not ask).
func candidateTurns(t *testing.T, events []runtime.Event) []candidateTurn {
	var out []candidateTurn
	for _, e := range events {
		p, err := e.Decode()
		if err != nil {
			t.Fatal(err)
		}
		switch p := p.(type) {
		case *runtime.TranscriptSegmentPayload:
			if p.Speaker == runtime.SpeakerCandidate && p.IsFinal {
				out = append(out, candidateTurn{text: p.Text, confidence: p.Confidence, durationMs: p.DurationMs})
			}
		case *runtime.ObservationPayload:
			if p.Turn > 0 && p.Turn <= len(out) {
				out[p.Turn-1].observation = slices.Clone(p.Raw)
			}
		}
	}
	return out
}

// operatorCommand sends an examiner's command through the store's command channel (as
// examtui monitor does for an exam outside a room) and waits until the exam has recorded it.
func operatorCommand(t *testing.T, store *sessions.Store, c sessions.Command) {
	before := countEvents(t, store, c.SessionID, runtime.EventAdminInstruction)
	if _, err := store.SendCommand(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() bool {
		return countEvents(t, store, c.SessionID, runtime.EventAdminInstruction) > before
	}, "the exam applies the %s command %s", c.Kind, c.Action)
}

func countEvents(t *testing.T, store *sessions.Store, id string, typ runtime.EventType) int {
	n := 0
	for _, e := range storedEvents(t, store, id) {
		if e.Event == typ {
			n++
		}
	}
	return n
}

func storedEvents(t *testing.T, store *sessions.Store, id string) []runtime.Event {
	var out []runtime.Event
	for e, err := range store.Events(context.Background(), id, 0) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func python3(t *testing.T) string {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed to test contrib/pipecat (Debian package python3, installed by make deps): %v", err)
	}
	return py
}

// bot is contrib/pipecat/parity_driver.py: the module driven like a Pipecat bot.
type bot struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startBot(t *testing.T, py, docPath, url string) *bot {
	cmd := exec.Command(py, "parity_driver.py")
	cmd.Dir = filepath.Join("..", "..", "..", "..", "contrib", "pipecat")
	cmd.Env = append(os.Environ(), "EXAMTUI_FLOWS_JSON="+docPath, "EXAMTUI_CONTROLLER_URL="+url,
		"EXAMTUI_CONTROLLER_TOKEN="+parityToken, "PYTHONDONTWRITEBYTECODE=1")
	cmd.Stderr = testWriter{t}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &bot{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	b.out.Buffer(make([]byte, 1<<20), 1<<20)
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return b
}

func (b *bot) send(t *testing.T, step map[string]any) map[string]any {
	line, err := json.Marshal(step)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(b.in, "%s\n", line); err != nil {
		t.Fatal(err)
	}
	if !b.out.Scan() {
		t.Fatalf("the Python bot stopped: %v", b.out.Err())
	}
	var out map[string]any
	if err := json.Unmarshal(b.out.Bytes(), &out); err != nil {
		t.Fatalf("bot answer %q: %v", b.out.Bytes(), err)
	}
	if st, _ := out["status"].(float64); out["error"] != nil && (st == 0 || st >= 500) {
		t.Fatalf("bot: %v", out["error"])
	}
	return out
}

func (b *bot) close(t *testing.T) {
	_ = b.in.Close()
	if err := b.cmd.Wait(); err != nil {
		t.Fatalf("python bot: %v", err)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Logf("python: %s", p); return len(p), nil }
