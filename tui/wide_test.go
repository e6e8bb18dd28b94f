package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/examtui/examtui/runtime"
)

// TestWideCharacters: answers in scripts whose characters take two cells (CJK, emoji) wrap
// inside their pane, and every border stays in its column.
func TestWideCharacters(t *testing.T) {
	r := newRecorder(t, "s-wide", fixtureStart)
	r.at(0, &runtime.ExamStatePayload{State: runtime.StateInProgress, Previous: runtime.StateReady, Nodes: []string{"日本語-ノード", "wrapup"}})
	r.at(0, &runtime.NodeEnteredPayload{NodeID: "日本語-ノード", Kind: "assessment", MaxFollowUps: 2, TimeBudgetSec: 120,
		Progress: runtime.Progress{CurrentNodeIndex: 1, TotalNodes: 2}, RequiredEvidenceCount: 2})
	r.at(time.Second, &runtime.SpokenPayload{NodeID: "日本語-ノード", Source: "prompt", Text: "朝食のビュッフェをどのように運営しますか？ 🍳🥐☕ Please answer in full sentences."})
	r.at(time.Second, &runtime.TranscriptSegmentPayload{SegmentID: "c1", NodeID: "日本語-ノード", Speaker: "candidate",
		Text: strings.Repeat("ビュッフェとアラカルトを組み合わせます。", 6) + " 👍🏽👨‍👩‍👧", Confidence: 0.42, IsFinal: true, Source: "mic"})
	r.at(0, &runtime.EvidenceUpdatePayload{NodeID: "日本語-ノード", SignalType: "proposes_options", RubricLevel: "分析",
		Excerpt: strings.Repeat("ビュッフェとアラカルト", 5), Confidence: 0.9, Accepted: 1, Required: 2})
	r.at(0, &runtime.GuardrailTriggeredPayload{Guardrail: "rubric_leak", NodeID: "日本語-ノード", Action: "replace",
		OriginalText: strings.Repeat("分析レベルの回答です。", 5), ReplacementText: "ありがとうございます。続けてください。"})
	r.at(0, &runtime.ObservationPayload{NodeID: "日本語-ノード", Turn: 1, Examiner: "offline", Valid: true,
		Raw: rawJSON(map[string]any{"spokenText": strings.Repeat("分析レベル", 30)}), Decision: runtime.Decision{Action: "continue"}})
	r.at(0, &runtime.TranscriptSegmentPayload{SegmentID: "c2", NodeID: "日本語-ノード", Speaker: "candidate",
		Text: strings.Repeat("話している途中", 8), Confidence: 0.8, Source: "mic"})
	for _, sz := range []struct{ w, h int }{{80, 24}, {81, 24}, {120, 40}, {199, 60}, {200, 60}} {
		for _, debug := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d/debug=%v", sz.w, sz.h, debug), func(t *testing.T) {
				m := newTestModel(t, hotelInfo, &fakeBackend{}, WithEventClock())
				m.Apply(r.events...)
				m.Update(windowSize(sz.w, sz.h))
				if debug {
					drive(t, m, press("f2"))
				}
				lines := strings.Split(m.Render(), "\n")
				if len(lines) != sz.h {
					t.Fatalf("%d lines, want %d", len(lines), sz.h)
				}
				for i, l := range lines[1 : len(lines)-2] { // the body: every row fills the width exactly
					if w := ansi.StringWidth(l); w != sz.w {
						t.Errorf("row %d is %d cells, want %d: %q", i+1, w, sz.w, ansi.Strip(l))
					}
				}
				screen := Plain(m.Render())
				if sz.w == 120 && !debug && testing.Verbose() {
					t.Log("\n" + screen)
				}
				want := []string{"ビュッフェ"}
				if sz.h >= 40 { // a short screen has scrolled the marked turn's first line away
					want = append(want, "Candidate [0.42 low]: ビュッフェ")
				}
				for _, w := range want {
					if !strings.Contains(screen, w) {
						t.Errorf("screen lacks %q:\n%s", w, screen)
					}
				}
			})
		}
	}
}
