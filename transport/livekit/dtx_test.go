package livekit_test

import (
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/transport/livekit"
)

// framesFor collects what c decodes for d.
func framesFor(c *livekit.Client, d time.Duration) []livekit.AudioFrame {
	var got []livekit.AudioFrame
	end := time.After(d)
	for {
		select {
		case f := <-c.Audio():
			got = append(got, f)
		case <-end:
			return got
		}
	}
}

func samplesOf(frames []livekit.AudioFrame) []int16 {
	var s []int16
	for _, f := range frames {
		s = append(s, f.Samples...)
	}
	return s
}

// voicedRMS is the RMS of the 20 ms windows of s louder than threshold.
func voicedRMS(s []int16, threshold float64) float64 {
	var voiced []int16
	for i := 0; i+320 <= len(s); i += 320 {
		if audio.RMS(s[i:i+320]) > threshold {
			voiced = append(voiced, s[i:i+320]...)
		}
	}
	return audio.RMS(voiced)
}

// TestSilentExaminerSendsNothing: the bot's track carries the examiner's speech intact, then
// nothing in silence (the SDK's track sent a frame every 10 ms, a hundred a second), and audio
// after the silence (a jump of the RTP clock) arrives intact too.
func TestSilentExaminerSendsNothing(t *testing.T) {
	e := startExam(t)
	cand := e.dial(t, "candidate-1", livekit.RoleCandidate)
	e.waitAudience(t, "candidate-1")
	select {
	case <-cand.Audio(): // the server's silent frames for a Go subscriber of a track that sends nothing
	case <-time.After(20 * time.Second):
		t.Fatal("candidate never received the bot's audio track")
	}

	said := speech(t, "Good morning. Our breakfast is losing money and guests are unhappy. What would you do?")
	saidDur := time.Duration(len(said)) * time.Second / 16000
	if err := e.bot.Voice().Write(said); err != nil {
		t.Fatal(err)
	}
	got := samplesOf(framesFor(cand, saidDur+2*time.Second))
	sentV, recvV := voicedDuration(said, 16000, 500), voicedDuration(got, 16000, 500)
	sentL, recvL := voicedRMS(said, 500), voicedRMS(got, 500)
	t.Logf("speech %s, %s voiced at RMS %.0f; candidate decoded %s voiced at RMS %.0f", saidDur, sentV, sentL, recvV, recvL)
	if recvV < sentV*9/10 || recvV > sentV*11/10 {
		t.Errorf("candidate heard %s of voiced speech, want about %s", recvV, sentV)
	}
	if recvL < sentL*0.75 || recvL > sentL*1.25 {
		t.Errorf("candidate heard the speech at RMS %.0f, want about %.0f", recvL, sentL)
	}

	// Silence: once the track has sent the speech, and its 50 ms tail has arrived, a second
	// brings nothing.
	select {
	case <-e.bot.Voice().Sent():
	case <-time.After(10 * time.Second):
		t.Fatal("the bot's track never sent the speech")
	}
	framesFor(cand, 300*time.Millisecond)
	const silence = time.Second
	quiet := framesFor(cand, silence)
	t.Logf("in %s of silence the candidate decoded %d frames (%d samples)", silence, len(quiet), len(samplesOf(quiet)))
	if len(quiet) > 0 {
		t.Errorf("candidate decoded %d frames in %s of silence, want none", len(quiet), silence)
	}

	// Audio after the silence plays intact: a 440 Hz tone of 1 s.
	if err := e.bot.Voice().Write(tone(440, time.Second, 8000)); err != nil {
		t.Fatal(err)
	}
	var heard []int16
	for _, f := range framesFor(cand, 2500*time.Millisecond) {
		if audio.RMS(f.Samples) > 1000 {
			heard = append(heard, f.Samples...)
		}
	}
	heardDur := time.Duration(len(heard)) * time.Second / 16000
	if heardDur < 900*time.Millisecond || heardDur > 1100*time.Millisecond {
		t.Errorf("candidate heard %s of a 1 s tone after the silence", heardDur)
	}
	if hz := zeroCrossingHz(heard, 16000); hz < 400 || hz > 480 {
		t.Errorf("candidate heard %.0f Hz after the silence, want about 440", hz)
	}
}
