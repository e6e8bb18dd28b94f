package audio

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
)

// speechCache keeps espeak-ng output per text: several tests speak the same sentences.
var speechCache sync.Map

// speak16k synthesises text with the real espeak-ng and returns it at 16 kHz (skipped under
// -short).
func speak16k(tb testing.TB, text string) []int16 {
	tb.Helper()
	testutil.SkipIfShort(tb, "espeak-ng")
	if v, ok := speechCache.Load(text); ok {
		return v.([]int16)
	}
	e, err := NewEspeak()
	if err != nil {
		tb.Fatal(err)
	}
	clip, err := e.Synthesize(context.Background(), text, SpeakOptions{Language: "en"})
	if err != nil {
		tb.Fatal(err)
	}
	c16, err := clip.To16k()
	if err != nil {
		tb.Fatal(err)
	}
	speechCache.Store(text, c16.Samples)
	return c16.Samples
}

// speechBounds finds where a clean clip's speech starts and ends (10 ms windows above -45 dBFS),
// the ground truth the VAD is measured against.
func speechBounds(s []int16) (start, end int) { return speechBoundsAbove(s, -45) }

// speechBoundsAbove is speechBounds with another threshold: with noise mixed in, speech quieter
// than the noise is not there to be found, so the truth is where the clean speech rises above it.
func speechBoundsAbove(s []int16, db float64) (start, end int) {
	const win = SampleRate / 100
	start, end = -1, -1
	for i := 0; i+win <= len(s); i += win {
		if LevelDB(s[i:i+win]) > db {
			if start < 0 {
				start = i
			}
			end = i + win
		}
	}
	return start, end
}

// whiteNoise returns n samples of Gaussian white noise at rmsDB dBFS, from a fixed seed.
func whiteNoise(n int, rmsDB float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	amp := math.Pow(10, rmsDB/20) * 32768
	out := make([]float64, n)
	for i := range out {
		out[i] = r.NormFloat64() * amp
	}
	return out
}

// pinkNoise returns n samples of 1/f noise (Paul Kellet's filter) normalised to rmsDB dBFS.
func pinkNoise(n int, rmsDB float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]float64, n)
	var b0, b1, b2, b3, b4, b5, b6 float64
	var sum float64
	for i := range out {
		w := r.NormFloat64()
		b0 = 0.99886*b0 + w*0.0555179
		b1 = 0.99332*b1 + w*0.0750759
		b2 = 0.96900*b2 + w*0.1538520
		b3 = 0.86650*b3 + w*0.3104856
		b4 = 0.55000*b4 + w*0.5329522
		b5 = -0.7616*b5 - w*0.0168980
		out[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w*0.5362
		b6 = w * 0.115926
		sum += out[i] * out[i]
	}
	scale := math.Pow(10, rmsDB/20) * 32768 / math.Sqrt(sum/float64(n))
	for i := range out {
		out[i] *= scale
	}
	return out
}

// mix adds noise to a signal, clipping to int16.
func mix(s []int16, noise []float64) []int16 {
	out := make([]int16, len(s))
	for i := range s {
		v := float64(s[i])
		if i < len(noise) {
			v += noise[i]
		}
		out[i] = clampInt16(v)
	}
	return out
}

// scene lays clips on a timeline separated by silent gaps and records the ground truth.
type scene struct {
	samples []int16
	bounds  [][2]int64 // speech start/end per clip, in samples
	clean   [][2]int64 // where each clip starts and ends in samples
}

// audibleBounds is the truth with noise at noiseDB: per clip, where its speech rises above the noise.
func (sc scene) audibleBounds(noiseDB float64) [][2]int64 {
	out := make([][2]int64, len(sc.clean))
	for i, c := range sc.clean {
		s, e := speechBoundsAbove(sc.samples[c[0]:c[1]], max(-45, noiseDB))
		out[i] = [2]int64{c[0] + int64(s), c[0] + int64(e)}
	}
	return out
}

func buildScene(lead int, parts ...any) scene {
	var sc scene
	sc.samples = make([]int16, lead)
	for _, p := range parts {
		switch v := p.(type) {
		case int: // silence in ms
			sc.samples = append(sc.samples, make([]int16, v*SampleRate/1000)...)
		case []int16: // trimmed to its speech, so the gaps are exactly the pauses asked for
			s, e := speechBounds(v)
			at := int64(len(sc.samples))
			sc.bounds = append(sc.bounds, [2]int64{at, at + int64(e-s)})
			sc.clean = append(sc.clean, [2]int64{at, at + int64(e-s)})
			sc.samples = append(sc.samples, v[s:e]...)
		}
	}
	return sc
}

// frames cuts samples into 20 ms frames (the last one zero padded).
func frames(s []int16) []Frame {
	var out []Frame
	for off := 0; off < len(s); off += FrameSamples {
		f := make([]int16, FrameSamples)
		copy(f, s[off:min(off+FrameSamples, len(s))])
		out = append(out, Frame{Samples: f, Offset: int64(off)})
	}
	return out
}

func testdataDir(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

func writeTempWAV(tb testing.TB, s []int16, rate int) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "in.wav")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	if err := WriteWAV(f, s, rate); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// numberedTranscriber starts a transcription server whose n-th request (from 1) is answered by
// reply(n); calls reports how many requests it has had.
func numberedTranscriber(t testing.TB, reply func(n int) openaitest.Behaviour) (srv *openaitest.Server, calls func() int) {
	var (
		mu sync.Mutex
		c  int
	)
	srv = openaitest.New(t, openaitest.WithAPIKey("sk-test"), openaitest.WithTranscriber(
		func(*openaitest.TranscriptionRequest) openaitest.Behaviour {
			mu.Lock()
			c++
			n := c
			mu.Unlock()
			return reply(n)
		}))
	return srv, func() int {
		mu.Lock()
		defer mu.Unlock()
		return c
	}
}

// speechOut is the examiner's side of a voice on the ALSA null device: the real espeak-ng and a
// PortAudio player (skipped under -short).
func speechOut(t testing.TB) (*Espeak, *Player) {
	t.Helper()
	useNullALSA(t)
	espeak, err := NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	return espeak, nullPlayer(t)
}

// nullPlayer opens the default output device on the ALSA null config (skipped under -short);
// it is closed when the test ends.
func nullPlayer(t testing.TB) *Player {
	t.Helper()
	useNullALSA(t)
	p, err := OpenPlayer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// newTestSphinx is the offline recogniser for phrases, closed when the test ends.
func newTestSphinx(tb testing.TB, phrases []string) *Sphinx {
	tb.Helper()
	sp, err := NewSphinx(phrases)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sp.Close() })
	return sp
}

// startVoice builds a Voice and starts it; it is closed when the test ends, if the test has not
// closed it already.
func startVoice(t testing.TB, src Source, rec Recognizer, synth Synthesizer, sink Sink, opts ...VoiceOption) *Voice {
	t.Helper()
	v, err := NewVoice(src, rec, synth, sink, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	if err := v.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return v
}
