package roomcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/runtime/llm"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

// Fake providers' latencies on the OpenAI wire, the same for both agents: the transcription
// answers after peerSTT, the chat model after peerLLM (then streams its answer at once), the
// speech endpoint after peerTTS plus espeak-ng's own synthesis.
const (
	peerSTT = 50 * time.Millisecond
	peerLLM = 100 * time.Millisecond
	peerTTS = 50 * time.Millisecond
)

// peerNoiseFloor is the candidate microphone's noise floor (dBFS, RMS) in this benchmark: a
// real microphone is never digitally silent (withNoiseFloor), and LiveKit Agents' audio
// end-of-turn model held four of the five answers to its 2.5 s max delay when they were
// followed by exact zeros.
const peerNoiseFloor = -65

// peerReplies are what the chat model says, one request after another: examtui's examiner as
// its observation's spokenText, the peer as its plain answer. Each opens with the same
// acknowledgement, as an examiner's replies often do, and goes on differently.
var peerReplies = []string{
	"Thank you. Could you tell me a little more about that?",
	"Thank you. How would your guests notice the change?",
	"Thank you. What would that mean for the kitchen team?",
	"Thank you. Which part of the plan would you start with?",
	"Thank you. How would you know that it had worked?",
}

// BenchmarkPeerReplyLatency measures examtui's exam bot and a LiveKit Agents voice agent
// (tools/lkagents: AgentSession with its Silero VAD and OpenAI plugins and its own default
// end of turn) with one harness and the same fake providers on the OpenAI wire (peerSTT,
// peerLLM, peerTTS): a candidate client on the same LiveKit server speaks the rehearsal's
// answers with espeak-ng and measures each reply from its last voiced sample to the first
// voiced audio it hears, as BenchmarkSpokenReplyLatency does, with a microphone that has a
// noise floor (peerNoiseFloor). Each iteration is one session of the five answers, so
// -benchtime 4x measures 20 replies per agent; p50 and p95 are over all the replies of the
// run. "ratio" (in the livekit-agents run) is examtui's p50 over the peer's, both measured in
// the same run; "eot-held" is how many of the peer's end-of-turn predictions ("eot-turns")
// its turn detector judged an unlikely end, which holds the turn to its max delay (2.5 s).
//
//	make lkagents
//	EXAMTUI_LIVEKIT_SERVER=bin/livekit-server go test -run XXX -bench BenchmarkPeerReplyLatency -benchtime 4x ./cmd/examtui/internal/roomcheck/
func BenchmarkPeerReplyLatency(b *testing.B) {
	agentJS := testutil.InstalledTool(b, "EXAMTUI_LKAGENTS", "lkagents/agent.mjs", "lkagents")
	srv := lktest.Start(b)
	espeak, err := audio.NewEspeak()
	if err != nil {
		b.Fatal(err)
	}
	stt := &openaitest.Answers{Delay: peerSTT}
	var lines [][]int16
	for _, text := range runtimetest.RehearsalAnswers {
		c, err := espeak.Synthesize(context.Background(), text, audio.SpeakOptions{})
		if err != nil {
			b.Fatal(err)
		}
		c16, err := c.To16k()
		if err != nil {
			b.Fatal(err)
		}
		stt.Add(text, c16.Samples, audio.SampleRate)
		lines = append(lines, append(c16.Samples, make([]int16, audio.SampleRate/2)...))
	}
	var replied atomic.Int64
	ai := openaitest.New(b, openaitest.WithTranscriber(stt.Transcribe), openaitest.WithSpeechDelay(peerTTS), openaitest.WithDefault(func(r *openaitest.ChatRequest) openaitest.Behaviour {
		reply := peerReplies[int(replied.Add(1)-1)%len(peerReplies)]
		if len(r.Tools) > 0 {
			obs := fmt.Sprintf(`{"signals":[],"answerQuality":"partial","needsFollowUp":false,"evidenceSufficient":false,`+
				`"anxietyDetected":false,"distressDetected":false,"rapportMove":"acknowledgement","dialogueMove":"none","spokenText":%q}`, reply)
			return openaitest.ToolCall(obs, openaitest.Delay(peerLLM))
		}
		return openaitest.Content(reply, openaitest.Delay(peerLLM))
	}))
	p50 := map[string]float64{}
	for _, name := range []string{"examtui", "livekit-agents"} {
		b.Run(name, func(b *testing.B) {
			var lat []float64
			failed, eotTurns, eotHeld, session := 0, 0, 0, 0
			var timings voicepath.Timings
			for b.Loop() {
				room := fmt.Sprintf("peer-%s-%d", name, time.Now().UnixNano())
				var stop func()
				var agentLog string
				greets := name == "examtui"
				if name == "examtui" {
					stop = startExamtuiPeer(b, srv, ai, room, timings.Add)
				} else {
					stop, agentLog = startAgentsPeer(b, srv, ai, agentJS)
				}
				got, n, err := measurePeer(b, srv, room, lines, greets)
				stop()
				if err != nil {
					b.Fatal(err)
				}
				session++
				b.Logf("%s, session %d: replies %v ms, %d never came", name, session, got, n)
				if agentLog != "" {
					out, err := os.ReadFile(agentLog)
					if err != nil {
						b.Fatal(err)
					}
					turns, held := peerTurnDecisions(out)
					eotTurns += turns
					eotHeld += held
				}
				lat = append(lat, got...)
				failed += n
			}
			b.ReportMetric(headless.Percentile(lat, 50), "p50-ms")
			b.ReportMetric(headless.Percentile(lat, 95), "p95-ms")
			b.ReportMetric(float64(len(lat)), "replies")
			for _, s := range voicepath.Stages() {
				if ms := timings.Of(s); len(ms) > 0 { // examtui's bot's own stages (voicepath.Timing)
					b.ReportMetric(headless.Percentile(ms, 50), s.Key()+"-p50-ms")
				}
			}
			b.ReportMetric(float64(failed), "failed")
			if name == "livekit-agents" {
				b.ReportMetric(float64(eotTurns), "eot-turns")
				b.ReportMetric(float64(eotHeld), "eot-held")
			}
			p50[name] = headless.Percentile(lat, 50)
			if peer := p50["livekit-agents"]; name == "livekit-agents" && peer > 0 && p50["examtui"] > 0 {
				b.ReportMetric(p50["examtui"]/peer, "ratio")
			}
		})
	}
}

// startExamtuiPeer opens the demo exam with the LLM examiner on the stand-in and joins its bot
// to room with the stand-in's transcription and speech and the adaptive end of turn of
// `examtui run --room`; the exam starts when the candidate is in. timings receives where each
// reply's time went on the bot's side.
func startExamtuiPeer(b *testing.B, srv *lktest.Server, ai *openaitest.Server, room string, timings func(voicepath.Timing)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ex, err := llm.New(llm.WithBaseURL(ai.URL()), llm.WithAPIKey("sk-test"), llm.WithHTTPClient(ai.Client()))
	if err != nil {
		b.Fatal(err)
	}
	x := apptest.OpenExam(ctx, b, app.Options{DataDir: b.TempDir(), Input: runtime.SourceRoom, ExaminerOverride: ex})
	rec, err := audio.NewOpenAIRecognizer(ai.URL(), "sk-test", ai.Client())
	if err != nil {
		b.Fatal(err)
	}
	tts, err := audio.NewOpenAISpeech(ai.URL(), "sk-test", ai.Client())
	if err != nil {
		b.Fatal(err)
	}
	rb, err := x.JoinRoom(ctx, app.RoomOptions{
		Config:      livekit.Config{URL: srv.URL, Token: srv.RoomToken(room, BotIdentity, livekit.RoleBot)},
		Recognizer:  rec,
		Synthesizer: tts,
		VoiceOptions: []voicepath.Option{voicepath.WithBargeIn(true),
			voicepath.WithRoomEndOfTurn(audio.EndpointConfig{}, x.Spec.Policies.TurnTaking, false, false), voicepath.WithTimings(timings)},
	})
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := rb.WaitCandidate(ctx); err == nil {
			_ = x.Start(ctx)
		}
	}()
	return func() {
		cancel()
		<-done
		_ = rb.Close()
		_ = ex.Close()
	}
}

// startAgentsPeer runs the LiveKit Agents worker (node agentJS start) against srv with the
// stand-in as its OpenAI provider; the server dispatches it to the next room that opens. It
// logs at debug level (its end-of-turn predictions, read by peerTurnDecisions) to logPath,
// complete once stop has returned.
func startAgentsPeer(b *testing.B, srv *lktest.Server, ai *openaitest.Server, agentJS string) (stop func(), logPath string) {
	cmd := exec.Command("node", agentJS, "start", "--log-level", "debug")
	cmd.Dir = filepath.Dir(agentJS)
	cmd.Env = append(os.Environ(), "LIVEKIT_URL="+srv.URL, "LIVEKIT_API_KEY="+srv.APIKey, "LIVEKIT_API_SECRET="+srv.Secret,
		"OPENAI_BASE_URL="+ai.URL(), "OPENAI_API_KEY=sk-test")
	logf, err := os.Create(filepath.Join(b.TempDir(), "agent.log"))
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its job processes go with it
	if err := cmd.Start(); err != nil {
		b.Fatalf("the LiveKit Agents worker: %v", err)
	}
	stop = func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		t := time.AfterFunc(10*time.Second, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
		_ = cmd.Wait()
		t.Stop()
		_ = logf.Close()
		if b.Failed() {
			if out, err := os.ReadFile(logf.Name()); err == nil {
				b.Logf("agent log:\n%s", out)
			}
		}
	}
	// The server dispatches the worker only to rooms opened after it registered.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if out, err := os.ReadFile(logf.Name()); err == nil && bytes.Contains(out, []byte(`"registered worker"`)) {
			return stop, logf.Name()
		}
		if time.Now().After(deadline) {
			stop()
			b.Fatal("the LiveKit Agents worker did not register with the server in 2 minutes")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// measurePeer joins room as the candidate, waits for the agent's audio (and its greeting,
// when it gives one), speaks each line and measures the reply: the latencies of the replies
// heard (ms) and how many never came.
func measurePeer(b *testing.B, srv *lktest.Server, room string, lines [][]int16, greets bool) ([]float64, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cand, err := livekit.Dial(ctx, srv.URL, srv.RoomToken(room, "candidate", livekit.RoleCandidate),
		livekit.WithMicrophone(audio.SampleRate), livekit.WithAgentAudio())
	if err != nil {
		return nil, 0, err
	}
	defer cand.Close()
	lctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	l := newListener()
	mic := newMicPump(cand.Voice(), withNoiseFloor(peerNoiseFloor))
	wg.Add(2)
	go func() { defer wg.Done(); l.run(lctx, cand.Audio()) }()
	go func() { defer wg.Done(); mic.run(lctx) }()
	if err := l.waitTrack(ctx); err != nil {
		return nil, 0, fmt.Errorf("the agent's audio never came: %w", err)
	}
	wait := waitOpts{firstTimeout: 20 * time.Second, tail: DefaultTailSilence, maxReply: DefaultMaxReply}
	if greets {
		if _, err := l.awaitReply(ctx, time.Now(), waitOpts{firstTimeout: time.Minute, tail: DefaultTailSilence, maxReply: time.Minute}); err != nil {
			return nil, 0, fmt.Errorf("opening: %w", err)
		}
	}
	var lat []float64
	failed := 0
	for i, pcm := range lines {
		_, end, err := mic.say(ctx, pcm)
		if err != nil {
			return lat, failed, err
		}
		since := end
		if _, last, ok := voicedBounds(pcm); ok {
			since = end.Add(-(time.Duration(len(pcm))*time.Second/audio.SampleRate - last))
		}
		r, err := l.awaitReply(ctx, since, wait)
		switch {
		case err != nil:
			b.Logf("line %d: %v", i, err)
			failed++
		case r.early > 0:
			b.Logf("line %d: the reply began %v before the speech ended", i, r.early)
		default:
			lat = append(lat, float64(r.latency(since).Microseconds())/1000)
		}
	}
	return lat, failed, nil
}

// peerTurnDecisions reads the LiveKit Agents worker's debug log (one JSON object a line): how
// many end-of-turn predictions its turn detector made ("eot prediction") and how many of them
// judged the end unlikely (a probability under the language's threshold), which holds the turn
// to the max endpointing delay instead of the min.
func peerTurnDecisions(log []byte) (turns, held int) {
	for line := range bytes.Lines(log) {
		var ev struct {
			Msg         string   `json:"msg"`
			Probability *float64 `json:"endOfTurnProbability"`
			Threshold   *float64 `json:"unlikelyThreshold"`
		}
		if json.Unmarshal(line, &ev) != nil || ev.Msg != "eot prediction" || ev.Probability == nil {
			continue
		}
		turns++
		if ev.Threshold != nil && *ev.Probability < *ev.Threshold {
			held++
		}
	}
	return turns, held
}
