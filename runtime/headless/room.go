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
	// Opening is the examiner's opening lines, measured from the start of the exam.
	Opening *ReplyTiming `json:"opening,omitempty"`
	// StartedEarly counts replies whose audio began before the candidate finished: they are
	// reported, not counted in p50/p95 (they would read as 0 ms replies).
	StartedEarly int `json:"startedEarly"`
	// CutOffs counts examiner starts inside a candidate's pause that the script did not expect.
	CutOffs int `json:"cutOffs"`
	// Transport is what carried the run (livekit); NativeInterrupt whether it has an interrupt
	// message; Interruption how this run's interrupt steps interrupt (native or timing), and
	// InterruptNote why, when it is not what was asked for.
	Transport       string `json:"transport,omitempty"`
	NativeInterrupt bool   `json:"nativeInterrupt"`
	Interruption    string `json:"interruption,omitempty"`
	InterruptNote   string `json:"interruptNote,omitempty"`
	// EventsWritten and EventsFailed count the lines of the --events stream; a line that could
	// not be written is logged and the run goes on.
	EventsWritten int `json:"eventsWritten,omitempty"`
	EventsFailed  int `json:"eventsFailed,omitempty"`
}

// ReplyTiming is one examiner reply as the candidate heard it.
type ReplyTiming struct {
	Step      int     `json:"step"`
	Said      string  `json:"said"`
	LatencyMs float64 `json:"latencyMs"` // end of the candidate's turn → first audio of the reply
	AudioMs   float64 `json:"audioMs"`   // how long the reply played
	Capped    bool    `json:"capped,omitempty"`
	Error     string  `json:"error,omitempty"`
	// Kind is say, interrupt or opening.
	Kind string `json:"kind,omitempty"`
	// TTFBMs is the time to the first byte of the reply: its spoken event reaching the
	// candidate, before any of its audio.
	TTFBMs float64 `json:"ttfbMs,omitempty"`
	// Words is what the examiner said in the reply (its spoken events).
	Words string `json:"words,omitempty"`
	// StartedEarly: the examiner's audio began EarlyMs before the candidate finished.
	StartedEarly bool    `json:"startedEarly,omitempty"`
	EarlyMs      float64 `json:"earlyMs,omitempty"`
	// Timeout is set when a wait ran out (first-chunk, reply, transport).
	Timeout *ReplyTimeout `json:"timeout,omitempty"`
	// Timeline is who spoke when, from the candidate's step to the end of the reply.
	Timeline []SpeakingEvent `json:"timeline,omitempty"`
	CutOffs  []CutOff        `json:"cutOffs,omitempty"`
	BargeIn  *BargeIn        `json:"bargeIn,omitempty"`
	// Candidate and Examiner are each side's part of the step, each in its own WAV.
	Candidate *Clip `json:"candidate,omitempty"`
	Examiner  *Clip `json:"examiner,omitempty"`
}

// Summarize computes p50 and p95 of the replies' latencies (nearest rank), leaving out failed
// replies, replies that began before the candidate finished and barge-in steps, and counts the
// early replies and unexpected cut-offs.
func (v *VoiceReport) Summarize() {
	var lat []float64
	v.StartedEarly, v.CutOffs = 0, 0
	for _, r := range v.Replies {
		if r.StartedEarly {
			v.StartedEarly++
		}
		for _, c := range r.CutOffs {
			if !c.Expected {
				v.CutOffs++
			}
		}
		if r.Error == "" && !r.StartedEarly && r.Kind != "interrupt" {
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
	if v.Transport != "" {
		fmt.Fprintf(b, "  transport:  %s; native interrupt: %s; interrupt steps: %s\n", v.Transport, yesNo(v.NativeInterrupt), interruptionText(v.Interruption))
		if v.InterruptNote != "" {
			fmt.Fprintf(b, "              %s\n", v.InterruptNote)
		}
	}
	fmt.Fprintf(b, "  replies:    %d (%s turns), p50 %.0f ms, p95 %.0f ms to first audio; tail silence %s, cap %s\n",
		len(v.Replies), v.Mode, v.P50Ms, v.P95Ms, time.Duration(v.TailSilenceMs)*time.Millisecond,
		time.Duration(v.MaxReplyMs)*time.Millisecond)
	replies := v.Replies
	if v.Opening != nil {
		replies = append([]ReplyTiming{*v.Opening}, replies...)
	}
	for _, r := range replies {
		said := r.Said
		if r.Kind == "opening" {
			said = "(opening)"
		}
		if r.Error != "" {
			fmt.Fprintf(b, "    %2d %-44q ERROR %s\n", r.Step, clip(said, 42), r.Error)
			writeClips(b, r)
			continue
		}
		var notes []string
		if r.Capped {
			notes = append(notes, "cut at the cap")
		}
		if r.StartedEarly {
			notes = append(notes, fmt.Sprintf("began %.0f ms before the candidate finished; not in p50/p95", r.EarlyMs))
		}
		if r.BargeIn != nil {
			verdict := "stopped"
			if !r.BargeIn.Stopped {
				verdict = "DID NOT STOP"
			}
			began := "the candidate began"
			if r.BargeIn.Method == InterruptNative {
				began = "the stop message"
			}
			notes = append(notes, fmt.Sprintf("barge-in: %s %.0f ms after %s (limit %.0f ms)", verdict, r.BargeIn.StoppedAfterMs, began, r.BargeIn.LimitMs))
		}
		for _, c := range r.CutOffs {
			what := "CUT-OFF"
			if c.Expected {
				what = "cut-off (expected)"
			}
			notes = append(notes, fmt.Sprintf("%s: examiner spoke %.0f ms into a %.0f ms pause", what, c.ExaminerAtMs-c.PauseAtMs, c.PauseMs))
		}
		extra := ""
		if len(notes) > 0 {
			extra = " (" + strings.Join(notes, "; ") + ")"
		}
		fmt.Fprintf(b, "    %2d %-44q first audio %6.0f ms, reply %5.1f s%s\n", r.Step, clip(said, 42), r.LatencyMs, r.AudioMs/1000, extra)
		writeClips(b, r)
	}
	if v.StartedEarly > 0 {
		fmt.Fprintf(b, "  early:      %d replies began before the candidate finished (excluded from p50/p95)\n", v.StartedEarly)
	}
	if v.CandidateWAV != "" {
		fmt.Fprintf(b, "  recorded:   %s, %s\n", v.CandidateWAV, v.ExaminerWAV)
	}
	if v.EventsWritten+v.EventsFailed > 0 {
		fmt.Fprintf(b, "  events:     %d voice events written", v.EventsWritten)
		if v.EventsFailed > 0 {
			fmt.Fprintf(b, ", %d NOT written (the writer failed; see the log)", v.EventsFailed)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "  audience:   %d assessment events reached the candidate\n", v.CandidateLeaks)
}

// writeClips lists each side's slice of a reply: when, which file, what was said.
func writeClips(b *strings.Builder, r ReplyTiming) {
	for _, c := range []struct {
		who  string
		clip *Clip
	}{{"candidate", r.Candidate}, {"examiner", r.Examiner}} {
		if c.clip == nil {
			continue
		}
		file := c.clip.WAV
		if file == "" {
			file = "(typed, no audio)"
		}
		fmt.Fprintf(b, "       %-9s %7.0f–%7.0f ms  %s  %q\n", c.who, c.clip.StartMs, c.clip.EndMs, file, clip(c.clip.Transcript, 60))
	}
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

func interruptionText(m string) string {
	switch m {
	case InterruptNative:
		return "native (a stop message, then the line)"
	case InterruptTiming:
		return "timing-based (the line spoken over the examiner)"
	}
	return m
}
