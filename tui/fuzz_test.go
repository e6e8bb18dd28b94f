package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/runtime"
)

// FuzzApplyEvent feeds arbitrary payloads (as a misbehaving runtime or an LLM's raw report could
// produce) for every event type. The console must not panic, and every frame must fit.
func FuzzApplyEvent(f *testing.F) {
	for _, ev := range hotelSession(f) {
		f.Add(string(ev.Event), []byte(ev.Payload), uint8(80), uint8(24))
	}
	f.Add("observation", []byte(`{"raw":{"answerQuality":"off_topic"},"decision":{"trace":[{"rule":"\u001b[31m"}]}}`), uint8(100), uint8(30))
	f.Add("transcript_segment", []byte(`{"text":"\t\r\nwide 漢字 text 😀","confidence":-3,"isFinal":true,"source":"mic"}`), uint8(30), uint8(12))
	f.Add("node_entered", []byte(`{"nodeId":"n","progress":{"currentNodeIndex":-1,"totalNodes":99999},"deadlineAt":"not a time","timeBudgetSec":-5}`), uint8(200), uint8(60))
	f.Fuzz(func(t *testing.T, typ string, payload []byte, w, h uint8) {
		width, height := int(w)%260+20, int(h)%90+8
		m := newTestModel(t, hotelInfo, &fakeBackend{}, WithEventClock())
		m.Update(windowSize(width, height))
		ev := runtime.Event{Event: runtime.EventType(typ), SessionID: "fuzz", Seq: 1, Timestamp: time.Unix(1_800_000_000, 0), Payload: json.RawMessage(payload)}
		m.Apply(ev, ev)
		for _, id := range []PaneID{PaneTranscript, PaneEvidence, PaneGuardrails, PaneTimers, PaneDebug} {
			m.setFocus(id)
			m.scrollPane(id, 5)
		}
		m.showDebug = true
		m.layout()
		for _, frame := range []string{m.Render()} {
			lines := strings.Split(frame, "\n")
			if len(lines) != height {
				t.Fatalf("%d lines, want %d", len(lines), height)
			}
			for i, l := range lines {
				if lw := ansi.StringWidth(l); lw > width {
					t.Fatalf("line %d is %d wide, want ≤ %d: %q", i, lw, width, l)
				}
			}
		}
	})
}
