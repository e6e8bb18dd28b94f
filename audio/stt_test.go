package audio

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
)

func TestSegmentConfidence(t *testing.T) {
	cases := []struct {
		logprob, noSpeech, want float64
	}{
		{0, 0, 1},
		{-0.1, 0.01, math.Exp(-0.1) * 0.99},
		{-1, 0.3, math.Exp(-1) * 0.7},
		{0.2, 0, 1},          // a positive log probability is a server bug: clamp
		{-0.2, 1.5, 0},       // no_speech beyond 1: clamp
		{-0.2, -0.5, 0.8187}, // below 0: treated as 0
		{math.NaN(), 0, 0},
		{math.Inf(-1), 0, 0},
	}
	for _, tc := range cases {
		if got := SegmentConfidence(tc.logprob, tc.noSpeech); math.Abs(got-tc.want) > 1e-3 {
			t.Errorf("SegmentConfidence(%v, %v) = %v, want %v", tc.logprob, tc.noSpeech, got, tc.want)
		}
	}
}

func newTestRecognizer(t testing.TB, srv *openaitest.Server, opts ...OpenAISTTOption) *OpenAIRecognizer {
	t.Helper()
	r, err := NewOpenAIRecognizer(srv.URL(), "sk-test", srv.Client(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOpenAIRecognizer(t *testing.T) {
	speech := speak16k(t, "Is breakfast included in the price?")
	utt := Utterance{Samples: speech, StartMs: 0, EndMs: int64(len(speech)) * 1000 / SampleRate}
	cases := []struct {
		name      string
		opts      []OpenAISTTOption
		reply     openaitest.Behaviour
		wantErr   error
		wantText  string
		wantConf  float64
		wantMin   float64
		wantKnown bool
		wantSegs  int
		wantForm  string
	}{
		{
			name: "verbose_json segments",
			opts: []OpenAISTTOption{WithSTTLanguage("en-GB"), WithSTTModel("whisper-large-v3")},
			reply: openaitest.Transcribed(openaitest.Transcript{Text: " Is breakfast included in the price? ", Segments: []openaitest.Segment{
				{Start: 0, End: 1, Text: "Is breakfast", AvgLogprob: -0.1, NoSpeechProb: 0.01},
				{Start: 1, End: 2, Text: "included in the price?", AvgLogprob: -0.7, NoSpeechProb: 0.2},
			}}),
			wantText: "Is breakfast included in the price?",
			wantConf: (math.Exp(-0.1)*0.99 + math.Exp(-0.7)*0.8) / 2, wantMin: math.Exp(-0.7) * 0.8, wantKnown: true, wantSegs: 2,
			wantForm: "verbose_json",
		},
		{
			name:     "plain json has no confidence",
			opts:     []OpenAISTTOption{WithSTTPlainJSON()},
			reply:    openaitest.Transcribed(openaitest.Transcript{Text: "Is breakfast included?"}),
			wantText: "Is breakfast included?", wantConf: 1, wantMin: 1, wantForm: "json",
		},
		{name: "server error", reply: openaitest.Status(http.StatusInternalServerError), wantErr: ErrSTT},
		{name: "rate limited", reply: openaitest.RateLimited(time.Second), wantErr: ErrSTT},
		{name: "hang hits the timeout", opts: []OpenAISTTOption{WithSTTTimeout(200 * time.Millisecond)}, reply: openaitest.Hang(), wantErr: ErrSTT},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"))
			srv.EnqueueTranscription(tc.reply)
			rec := newTestRecognizer(t, srv, tc.opts...)
			got, err := rec.Transcribe(context.Background(), utt)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tc.wantText || len(got.Segments) != tc.wantSegs || got.HasConfidence != tc.wantKnown || !got.IsFinal {
				t.Errorf("got %+v", got)
			}
			if math.Abs(got.Confidence-tc.wantConf) > 1e-6 || math.Abs(got.MinConfidence-tc.wantMin) > 1e-6 {
				t.Errorf("confidence %v min %v, want %v min %v", got.Confidence, got.MinConfidence, tc.wantConf, tc.wantMin)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Transcription == nil {
				t.Fatalf("requests: %+v", reqs)
			}
			tr := reqs[0].Transcription
			if tr.ResponseFormat != tc.wantForm {
				t.Errorf("response_format %q, want %q", tr.ResponseFormat, tc.wantForm)
			}
			clip, err := ReadWAV(bytes.NewReader(tr.File))
			if err != nil || clip.Rate != SampleRate || len(clip.Samples) != len(speech) {
				t.Errorf("uploaded WAV: rate %d, %d samples, err %v", clip.Rate, len(clip.Samples), err)
			}
			if tc.name == "verbose_json segments" && (tr.Language != "en" || tr.Model != "whisper-large-v3") {
				t.Errorf("language %q model %q", tr.Language, tr.Model)
			}
		})
	}
}

func TestOpenAIRecognizerRejectsEmptyUtterance(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"))
	_, err := newTestRecognizer(t, srv).Transcribe(context.Background(), Utterance{})
	if !errors.Is(err, ErrNoSpeech) || len(srv.Requests()) != 0 {
		t.Fatalf("err %v, %d requests", err, len(srv.Requests()))
	}
}

func TestSpeakAndRecognize(t *testing.T) {
	const text = "I would like a table for two by the window, please."
	var (
		mu       sync.Mutex
		uploaded Clip
	)
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"),
		openaitest.WithTranscriber(func(req *openaitest.TranscriptionRequest) openaitest.Behaviour {
			// A scripted recogniser: it "hears" the text only if the audio holds the whole
			// sentence, which it checks against the clean synthesis below.
			c, err := ReadWAV(bytes.NewReader(req.File))
			if err != nil {
				return openaitest.Status(http.StatusBadRequest)
			}
			mu.Lock()
			uploaded = c
			mu.Unlock()
			return openaitest.Transcribed(openaitest.Transcript{Text: text, Segments: []openaitest.Segment{
				{Start: 0, End: c.Duration().Seconds(), Text: text, AvgLogprob: -0.2, NoSpeechProb: 0.05},
			}})
		}))
	rec := newTestRecognizer(t, srv)
	tr, timing, err := SpeakAndRecognize(context.Background(), text, rec, ScriptedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Text != text || timing.Utterances != 1 {
		t.Fatalf("transcript %q in %d utterances", tr.Text, timing.Utterances)
	}
	if want := math.Exp(-0.2) * 0.95; math.Abs(tr.MinConfidence-want) > 1e-6 {
		t.Errorf("min confidence %v, want %v", tr.MinConfidence, want)
	}
	if timing.EndpointingMs < 500 || timing.EndpointingMs > 520 {
		t.Errorf("endpointing %v ms, want 500..520", timing.EndpointingMs)
	}
	mu.Lock()
	defer mu.Unlock()
	s, e := speechBounds(speak16k(t, text))
	speech := time.Duration(e-s) * time.Second / SampleRate
	// The upload is the speech plus at most 200 ms of pre-roll and 200 ms of post-roll.
	if d := uploaded.Duration(); d < speech-60*time.Millisecond || d > speech+460*time.Millisecond {
		t.Errorf("uploaded %v of audio for %v of speech", d, speech)
	}
	t.Logf("speech %v, uploaded %v, endpointing %.0f ms, STT %.1f ms", speech, uploaded.Duration(), timing.EndpointingMs, timing.STTMs)
}

func TestSpeakAndRecognizeLongPauseMakesTwoUtterances(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"),
		openaitest.WithTranscriber(func(req *openaitest.TranscriptionRequest) openaitest.Behaviour {
			return openaitest.Transcribed(openaitest.Transcript{Text: "part", Segments: []openaitest.Segment{
				{Start: 0, End: 1, Text: "part", AvgLogprob: -0.05}}})
		}))
	// espeak-ng's [[_:]] is not needed: a long comma-free pause comes from two sentences joined
	// by a 1.5 s silence in the scripted synthesizer.
	tr, timing, err := SpeakAndRecognize(context.Background(), "Yes. Of course.", newTestRecognizer(t, srv),
		ScriptedConfig{Synth: pausingSynth{gap: 1500 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if timing.Utterances != 2 || tr.Text != "part part" || len(srv.Requests()) != 2 {
		t.Fatalf("%d utterances, text %q, %d requests", timing.Utterances, tr.Text, len(srv.Requests()))
	}
}

// pausingSynth speaks each word group between periods with espeak-ng and joins them with gap.
type pausingSynth struct{ gap time.Duration }

func (p pausingSynth) Synthesize(ctx context.Context, text string, opts SpeakOptions) (Clip, error) {
	e, err := NewEspeak()
	if err != nil {
		return Clip{}, err
	}
	var out []int16
	for i, part := range strings.SplitAfter(text, ".") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		c, err := e.Synthesize(ctx, part, opts)
		if err != nil {
			return Clip{}, err
		}
		c16, err := c.To16k()
		if err != nil {
			return Clip{}, err
		}
		if i > 0 {
			out = append(out, make([]int16, int(p.gap.Seconds()*SampleRate))...)
		}
		s, e := speechBounds(c16.Samples)
		out = append(out, c16.Samples[s:e]...)
	}
	return Clip{Samples: out, Rate: SampleRate}, nil
}
