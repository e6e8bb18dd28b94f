package openaitest

import (
	"bytes"
	"math"
	"sync"
	"time"
)

// Answers is a transcriber for spoken tests (WithTranscriber(a.Transcribe)): it is told the
// audio of each answer a test will speak, and answers an upload with the text whose voiced
// length is nearest the upload's (a pause's words or a whole turn), in one segment scored
// AvgLogprob and NoSpeechProb (zero: the stand-in's defaults), after Delay.
type Answers struct {
	AvgLogprob, NoSpeechProb float64
	Delay                    time.Duration

	mu     sync.Mutex
	texts  []string
	voiced []time.Duration
}

// Add makes text the answer to speech like pcm (mono, at rate).
func (a *Answers) Add(text string, pcm []int16, rate int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.texts = append(a.texts, text)
	a.voiced = append(a.voiced, VoicedLength(pcm, rate))
}

// Transcribe answers one transcription request (a 400 for audio that is not WAV, silence
// before any answer is added).
func (a *Answers) Transcribe(req *TranscriptionRequest) Behaviour {
	pcm, err := ReadWAV(bytes.NewReader(req.File))
	if err != nil {
		return Status(400, ErrorBody("invalid_request_error", "", err.Error()))
	}
	got := VoicedLength(pcm.Samples, pcm.SampleRate)
	a.mu.Lock()
	best := -1
	for i, v := range a.voiced {
		if best < 0 || (got-v).Abs() < (got-a.voiced[best]).Abs() {
			best = i
		}
	}
	tr := Transcript{}
	if best >= 0 {
		tr.Text = a.texts[best]
	}
	a.mu.Unlock()
	if tr.Text != "" && (a.AvgLogprob != 0 || a.NoSpeechProb != 0) {
		d := pcm.Duration().Seconds()
		tr.Duration = d
		tr.Segments = []Segment{{Start: 0, End: d, Text: tr.Text, AvgLogprob: a.AvgLogprob, NoSpeechProb: a.NoSpeechProb}}
	}
	return Transcribed(tr, Delay(a.Delay))
}

// VoicedLength is how much of pcm (mono, at rate) is louder than −40 dBFS, counted in 20 ms
// windows.
func VoicedLength(pcm []int16, rate int) time.Duration {
	win := max(rate/50, 1)
	n := 0
	for i := 0; i+win <= len(pcm); i += win {
		var sum float64
		for _, s := range pcm[i : i+win] {
			sum += float64(s) * float64(s)
		}
		if rms := math.Sqrt(sum / float64(win)); rms > 32768*math.Pow(10, -40.0/20) {
			n++
		}
	}
	return time.Duration(n) * 20 * time.Millisecond
}
