package openaitest

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"time"
)

// Answers is a transcriber for spoken tests (WithTranscriber(a.Transcribe)): it is told the
// audio of each answer a test will speak, and answers an upload with the text whose voiced
// length is nearest the upload's, in one segment scored AvgLogprob and NoSpeechProb (zero: the
// stand-in's defaults), after Delay. The texts are the answers and their parts: an answer
// said with pauses at its punctuation ("We could open a second buffet line, or …") is read,
// when a recogniser asks for the words before a pause, as its words so far with their mark
// ("We could open a second buffet line,"), as Whisper reads them.
type Answers struct {
	AvgLogprob, NoSpeechProb float64
	Delay                    time.Duration

	mu    sync.Mutex
	texts []said
}

// said is a text the stand-in knows and how long it is voiced.
type said struct {
	text   string
	voiced time.Duration
}

// Add makes text the answer to speech like pcm (mono, at rate), and each of its parts up to
// a pause the answer to that speech.
func (a *Answers) Add(text string, pcm []int16, rate int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.texts = append(a.texts, said{text: text, voiced: VoicedLength(pcm, rate)})
	a.texts = append(a.texts, partsAtPauses(text, pcm, rate)...)
}

// pauseWindows is the least silence, in 20 ms windows, between two voiced ones that counts as
// a pause at a punctuation mark: espeak-ng pauses 140 ms or more at a comma, and less inside
// words (a stop consonant's closure).
const pauseWindows = 5

// partsAtPauses pairs the pauses inside pcm with the punctuation marks inside text, in order,
// as the words up to each mark and their voiced length: nothing when they do not pair up.
func partsAtPauses(text string, pcm []int16, rate int) []said {
	var marks []int // the end of each word that carries a mark, not the last
	words := strings.Fields(text)
	for i, w := range words[:max(len(words)-1, 0)] {
		if strings.ContainsAny(w[len(w)-1:], ",;:.!?") {
			marks = append(marks, i+1)
		}
	}
	if len(marks) == 0 {
		return nil
	}
	var pauses []time.Duration // the voiced length before each pause
	voiced, quiet := 0, 0
	for _, loud := range voicedWindows(pcm, rate) {
		switch {
		case loud && voiced > 0 && quiet >= pauseWindows:
			pauses = append(pauses, time.Duration(voiced)*20*time.Millisecond)
			fallthrough
		case loud:
			voiced++
			quiet = 0
		default:
			quiet++
		}
	}
	if len(pauses) != len(marks) {
		return nil
	}
	out := make([]said, len(marks))
	for i, m := range marks {
		out[i] = said{text: strings.Join(words[:m], " "), voiced: pauses[i]}
	}
	return out
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
	for i, s := range a.texts {
		if best < 0 || (got-s.voiced).Abs() < (got-a.texts[best].voiced).Abs() {
			best = i
		}
	}
	tr := Transcript{}
	if best >= 0 {
		tr.Text = a.texts[best].text
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
	n := 0
	for _, loud := range voicedWindows(pcm, rate) {
		if loud {
			n++
		}
	}
	return time.Duration(n) * 20 * time.Millisecond
}

// voicedWindows says of each 20 ms window of pcm whether it is louder than −40 dBFS.
func voicedWindows(pcm []int16, rate int) []bool {
	win := max(rate/50, 1)
	out := make([]bool, 0, len(pcm)/win)
	for i := 0; i+win <= len(pcm); i += win {
		var sum float64
		for _, s := range pcm[i : i+win] {
			sum += float64(s) * float64(s)
		}
		out = append(out, math.Sqrt(sum/float64(win)) > 32768*math.Pow(10, -40.0/20))
	}
	return out
}
