package headless

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/spec"
)

// Evaluate fills r from the events and final snapshot of a run that was driven outside Run (a
// live room, `examtui test --room-url`) and checks the script's expectations, exactly as Run
// does.
func (s *Script) Evaluate(r *Result, events []runtime.Event, snap runtime.Snapshot) {
	r.collect(events, snap)
	r.check(s.Expect)
}

// CheckExam reports expectations that name signals or nodes the exam does not have.
func (s *Script) CheckExam(exam *spec.Exam) error {
	if probs := s.checkAgainst(exam); len(probs) > 0 {
		return fmt.Errorf("%w:\n  %s", ErrExpectationSet, strings.Join(probs, "\n  "))
	}
	return nil
}

// VoiceReport is what the simulated candidate of a room run measured of the examiner's spoken
// replies, like a voice-agent test adapter: when the first audio arrived after the candidate's
// turn, when the reply ended (tail silence, or the hard cap), and where both sides were
// recorded.
type VoiceReport struct {
	Mode           string        `json:"mode"` // typed | audio
	Replies        []ReplyTiming `json:"replies"`
	P50Ms          float64       `json:"p50Ms"`
	P95Ms          float64       `json:"p95Ms"`
	TailSilenceMs  int64         `json:"tailSilenceMs"`
	MaxReplyMs     int64         `json:"maxReplyMs"`
	FirstChunkMs   int64         `json:"firstChunkTimeoutMs"`
	CandidateWAV   string        `json:"candidateWav,omitempty"`
	ExaminerWAV    string        `json:"examinerWav,omitempty"`
	CandidateLeaks int           `json:"candidateLeaks"` // events the candidate received outside its view
}

// ReplyTiming is one examiner reply as the candidate heard it.
type ReplyTiming struct {
	Step      int     `json:"step"`
	Said      string  `json:"said"`
	LatencyMs float64 `json:"latencyMs"` // end of the candidate's turn → first audio of the reply
	AudioMs   float64 `json:"audioMs"`   // how long the reply played
	Capped    bool    `json:"capped,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// Summarize computes p50 and p95 of the replies' latencies (nearest rank).
func (v *VoiceReport) Summarize() {
	var lat []float64
	for _, r := range v.Replies {
		if r.Error == "" {
			lat = append(lat, r.LatencyMs)
		}
	}
	v.P50Ms, v.P95Ms = Percentile(lat, 50), Percentile(lat, 95)
}

// Percentile is the nearest-rank percentile p (0..100) of xs; 0 for none.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

func (v *VoiceReport) writeText(b *strings.Builder) {
	fmt.Fprintf(b, "  replies:    %d (%s turns), p50 %.0f ms, p95 %.0f ms to first audio; tail silence %s, cap %s\n",
		len(v.Replies), v.Mode, v.P50Ms, v.P95Ms, time.Duration(v.TailSilenceMs)*time.Millisecond,
		time.Duration(v.MaxReplyMs)*time.Millisecond)
	for _, r := range v.Replies {
		if r.Error != "" {
			fmt.Fprintf(b, "    %2d %-44q ERROR %s\n", r.Step, clip(r.Said, 42), r.Error)
			continue
		}
		capped := ""
		if r.Capped {
			capped = " (cut at the cap)"
		}
		fmt.Fprintf(b, "    %2d %-44q first audio %6.0f ms, reply %5.1f s%s\n", r.Step, clip(r.Said, 42), r.LatencyMs, r.AudioMs/1000, capped)
	}
	if v.CandidateWAV != "" {
		fmt.Fprintf(b, "  recorded:   %s, %s\n", v.CandidateWAV, v.ExaminerWAV)
	}
	fmt.Fprintf(b, "  audience:   %d assessment events reached the candidate\n", v.CandidateLeaks)
}
