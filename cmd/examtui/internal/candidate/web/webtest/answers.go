// Package webtest holds what the candidate page's tests share with the end-to-end tests that
// take an exam by voice in Chromium: the candidate's spoken answers as WAV files for the fake
// microphone (espeak-ng, each its own length), the stand-in recogniser that knows them on the
// OpenAI-compatible wire, and the page's microphone restarted on a new answer.
package webtest

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/browsertest"
	"github.com/examtui/examtui/internal/openaitest"
)

// Answers are the candidate's spoken answers as WAV files for Chromium's fake microphone:
// espeak-ng at 48 kHz mono 16-bit, each at its own pace so that no two last the same, then a
// long silence (Chromium loops the file; the silence keeps an answer from being said twice).
// The stand-in recogniser knows an answer by how long its speech lasts, and a part of the answer
// being said by how long each of its first words lasts.
type Answers struct {
	Said  []string        // the answers' text
	Files []string        // the answers' WAV files, as Said
	Voice []time.Duration // the voiced length of each answer, the recogniser's key
	parts [][]part        // each answer's first words, as said at its pace

	mu     sync.Mutex
	heard  []string // what the recogniser returned, in order
	saying int      // the answer Say played last, 1-based (0: none named)
}

// answerGap is how far apart the answers' voiced lengths are: the recogniser takes the nearest
// within half of it.
const answerGap = 800 * time.Millisecond

func NewAnswers(t testing.TB, said []string) *Answers {
	t.Helper()
	dir := t.TempDir()
	a := &Answers{Said: said}
	// Shortest sentences first, each 0.7 s longer than the one before it.
	order := make([]int, len(said))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return len(said[x]) - len(said[y]) })
	a.Files = make([]string, len(said))
	a.Voice = make([]time.Duration, len(said))
	a.parts = make([][]part, len(said))
	for rank, i := range order {
		target := 1500*time.Millisecond + time.Duration(rank)*answerGap
		path := filepath.Join(dir, fmt.Sprintf("answer-%d.wav", i))
		natural := Speak(t, said[i], 175, path)
		wpm := int(math.Round(175 * natural.Seconds() / target.Seconds()))
		a.Voice[i] = Speak(t, said[i], wpm, path)
		if d := a.Voice[i] - target; d.Abs() > answerGap/4 {
			// espeak-ng's pace is not quite linear in its wpm: one correction.
			wpm = int(math.Round(float64(wpm) * a.Voice[i].Seconds() / target.Seconds()))
			a.Voice[i] = Speak(t, said[i], wpm, path)
		}
		a.Files[i] = path
		a.parts[i] = parts(t, said[i], wpm)
	}
	for i := range a.Voice {
		for j := range i {
			if d := a.Voice[i] - a.Voice[j]; d.Abs() < answerGap*2/3 {
				t.Fatalf("answers %d and %d last %s and %s: too close for the recogniser to tell apart", j, i, a.Voice[j], a.Voice[i])
			}
		}
	}
	return a
}

// part is an answer's first words and how long they are voiced when said on their own.
type part struct {
	text   string
	voiced time.Duration
}

// parts says each of text's first words at wpm (the first word, the first two, …, all but the
// last) and measures them, so the recogniser can read a part of the answer as its words so far,
// with their punctuation ("We could open a second buffet line,"), as Whisper does when a pause
// is read before the answer ends.
func parts(t testing.TB, text string, wpm int) []part {
	t.Helper()
	key := fmt.Sprintf("%d %s", wpm, text)
	if p, ok := partsSaid.Load(key); ok {
		return p.([]part)
	}
	words := strings.Fields(text)
	out := make([]part, 0, len(words))
	for k := 1; k < len(words); k++ {
		prefix := strings.Join(words[:k], " ")
		pcm, err := openaitest.ReadWAV(bytes.NewReader(espeak(t, prefix, wpm)))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, part{prefix, VoicedLength(pcm)})
	}
	partsSaid.Store(key, out)
	return out
}

// partsSaid keeps parts by pace and text: every page test says the same answers.
var partsSaid sync.Map

// partNear is the part of answer i whose voiced length is nearest to got, within half a short
// word (partSlack), or "".
func (a *Answers) partNear(i int, got time.Duration) string {
	if i >= len(a.parts) {
		return "" // typed-only answers: no speech to know them by
	}
	best, bestD := "", partSlack
	for _, p := range a.parts[i] {
		if d := (got - p.voiced).Abs(); d < bestD {
			best, bestD = p.text, d
		}
	}
	return best
}

// partSlack is how far a part's voiced length may be from the words it is read as.
const partSlack = 120 * time.Millisecond

func espeak(t testing.TB, text string, wpm int) []byte {
	t.Helper()
	raw, err := exec.Command("espeak-ng", "-s", strconv.Itoa(wpm), "--stdout", text).Output()
	if err != nil {
		t.Fatalf("espeak-ng: %v", err)
	}
	return raw
}

// Speak writes text as a 48 kHz mono WAV at wpm, 0.3 s of silence before it and 30 s after,
// and returns how long it is voiced (VoicedLength).
func Speak(t testing.TB, text string, wpm int, path string) time.Duration {
	t.Helper()
	raw := espeak(t, text, wpm)
	cmd := exec.Command("sox", "-t", "wav", "-", "-r", "48000", "-c", "1", "-b", "16", path, "pad", "0.3", "30")
	cmd.Stdin = bytes.NewReader(raw)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	return VoicedLength(ReadWAV(t, path))
}

// ReadWAV reads the WAV file at path.
func ReadWAV(t testing.TB, path string) *openaitest.PCM {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pcm, err := openaitest.ReadWAV(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return pcm
}

// Silence writes 30 s of digital silence as a 48 kHz mono WAV.
func Silence(t testing.TB, path string) {
	t.Helper()
	if out, err := exec.Command("sox", "-n", "-r", "48000", "-c", "1", "-b", "16", path, "trim", "0", "30").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
}

// VoicedLength is how long a clip is voiced: the number of 10 ms windows above -40 dBFS. Gaps
// a loaded machine puts into the received audio (late packets played as silence) do not count,
// so an answer keeps its length on its way through the browser, the room and the bot.
func VoicedLength(p *openaitest.PCM) time.Duration {
	win := p.SampleRate / 100
	n := 0
	for i := 0; i+win <= len(p.Samples); i += win {
		var sum float64
		for _, s := range p.Samples[i : i+win] {
			sum += float64(s) * float64(s)
		}
		if math.Sqrt(sum/float64(win)) > 327 { // -40 dBFS
			n++
		}
	}
	return time.Duration(n) * 10 * time.Millisecond
}

// Transcribe is the stand-in recogniser (openaitest.WithTranscriber): the answer whose speech
// lasts as long as the utterance's (within half the gap between answers); else, while Say plays
// an answer, the first words of it that last as long (a pause read before the answer ends);
// else nothing (a cough, a burst of echo).
func (a *Answers) Transcribe(req *openaitest.TranscriptionRequest) openaitest.Behaviour {
	pcm, err := openaitest.ReadWAV(bytes.NewReader(req.File))
	if err != nil {
		return openaitest.Status(400, openaitest.ErrorBody("invalid_request_error", "", err.Error()))
	}
	got := VoicedLength(pcm)
	a.mu.Lock()
	saying := a.saying
	a.mu.Unlock()
	best, bestD := -1, answerGap/2
	for i, v := range a.Voice {
		if saying > 0 && i != saying-1 {
			// Say named the answer being played: a part of it (a recogniser that ends turns
			// at pauses asks for the words so far) must not pass for a shorter answer.
			continue
		}
		if d := (got - v).Abs(); d < bestD {
			best, bestD = i, d
		}
	}
	text := ""
	switch {
	case best >= 0:
		text = a.Said[best]
	case saying > 0 && got < a.Voice[saying-1]:
		text = a.partNear(saying-1, got)
	}
	a.mu.Lock()
	a.heard = append(a.heard, fmt.Sprintf("%s→%q", got.Round(10*time.Millisecond), text))
	a.mu.Unlock()
	return openaitest.Transcribed(openaitest.Transcript{Text: text})
}

func (a *Answers) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.Join(a.heard, "\n  ")
}

// Say plays answer i on the fake microphone at mic (Play) and tells the recogniser that it is
// the one being said: only speech as long as it is heard as it.
func (a *Answers) Say(t testing.TB, p *browsertest.Page, mic string, i int) {
	t.Helper()
	a.mu.Lock()
	a.saying = i + 1
	a.mu.Unlock()
	Play(t, p, mic, a.Files[i])
}

// Play makes the fake microphone (the WAV at mic, WithFakeAudio) play the WAV at path from its
// start: the file is replaced and the page captures again through its microphone menu
// (Chromium reads the file when capture starts), as when the candidate picks a microphone.
func Play(t testing.TB, p *browsertest.Page, mic, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := mic + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, mic); err != nil {
		t.Fatal(err)
	}
	p.Do(`(async () => { const s = document.querySelector("#mic"); s.dispatchEvent(new Event("change")); })()`)
}
