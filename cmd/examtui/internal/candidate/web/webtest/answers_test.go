package webtest

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
)

// TestTranscribeReadsAPart: a clip of an answer cut at a pause inside it (as the bot reads a
// pause before the answer ends) is read as the answer's words up to that pause, with the comma
// there if there is one; the whole clip is the whole answer. The rehearsal's answers, each at
// its own pace as the page tests say them: the slower ones pause 150 ms or more at their commas
// ("line,") and between phrases ("business travellers | who are in a hurry").
func TestTranscribeReadsAPart(t *testing.T) {
	a := NewAnswers(t, testutil.RehearsalSaid())
	parts, commas := 0, 0
	for i := range a.Said {
		pcm := ReadWAV(t, a.Files[i])
		a.saying = i + 1
		if got := a.readClip(t, pcm.Samples, pcm.SampleRate); got != a.Said[i] {
			t.Errorf("answer %d whole read as %q", i, got)
		}
		cut, ok := firstPause(pcm, 150*time.Millisecond)
		if !ok {
			t.Fatalf("answer %d: no pause after its speech", i)
		}
		head := &openaitest.PCM{SampleRate: pcm.SampleRate, Channels: 1, Samples: pcm.Samples[:cut]}
		if VoicedLength(head) >= a.Voice[i]-50*time.Millisecond {
			continue // its first long pause is its end
		}
		parts++
		got := a.readClip(t, head.Samples, head.SampleRate)
		if got == "" || got == a.Said[i] || !strings.HasPrefix(a.Said[i], got+" ") {
			t.Errorf("answer %d cut at its pause after %s read as %q, want its first words", i, VoicedLength(head), got)
		}
		if strings.HasSuffix(got, ",") {
			commas++
		}
		t.Logf("answer %d cut after %s voiced: %q", i, VoicedLength(head), got)
	}
	if parts == 0 || commas == 0 {
		t.Fatalf("%d answers paused 150 ms inside their speech, %d at a comma; want both", parts, commas)
	}
}

// readClip is what Transcribe reads in samples, followed by 40 ms of quiet.
func (a *Answers) readClip(t *testing.T, samples []int16, rate int) string {
	t.Helper()
	clip := append(append([]int16(nil), samples...), make([]int16, rate/25)...)
	var b bytes.Buffer
	if err := audio.WriteWAV(&b, clip, rate); err != nil {
		t.Fatal(err)
	}
	be := a.Transcribe(&openaitest.TranscriptionRequest{File: b.Bytes()})
	return be.Transcript.Text
}

// firstPause is the sample at which the first quiet stretch of at least d inside the speech
// begins (10 ms windows under -40 dBFS, as VoicedLength counts them).
func firstPause(p *openaitest.PCM, d time.Duration) (int, bool) {
	win := p.SampleRate / 100
	need := int(d / (10 * time.Millisecond))
	spoken, quiet := false, 0
	for i := 0; i+win <= len(p.Samples); i += win {
		if VoicedLength(&openaitest.PCM{SampleRate: p.SampleRate, Channels: 1, Samples: p.Samples[i : i+win]}) > 0 {
			spoken, quiet = true, 0
			continue
		}
		if !spoken {
			continue
		}
		if quiet++; quiet == need {
			return i - (need-1)*win, true
		}
	}
	return 0, false
}
