package audio

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/testutil"
)

func TestSplitSentences(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"Good morning. What would you like for breakfast?", []string{"Good morning.", "What would you like for breakfast?"}},
		{"Yes. Of course. Please go on!", []string{"Yes.", "Of course. Please go on!"}},
		{"Thank you. Could you say more? Yes. Go on.", []string{"Thank you.", "Could you say more?", "Yes. Go on."}},
		{"Dr. Smith is here, e.g. in room 4. Go now.", []string{"Dr. Smith is here, e.g. in room 4.", "Go now."}},
		{"  no   ending punctuation ", []string{"no ending punctuation"}},
		{"He said \"stop here.\" Then he left.", []string{"He said \"stop here.\"", "Then he left."}},
		{"Wait… really? Yes!", []string{"Wait…", "really? Yes!"}},
		{"", nil},
	}
	for _, tc := range cases {
		got := SplitSentences(tc.in)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("SplitSentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzSplitSentences: spoken text comes from the LLM; splitting must lose and add nothing.
func FuzzSplitSentences(f *testing.F) {
	for _, s := range []string{"Good morning. Hi!", "e.g. Mr. X?", "……", "a.b.c. d", "\"Yes.\" No."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := SplitSentences(s)
		if strings.Join(got, " ") != strings.Join(strings.Fields(s), " ") {
			t.Fatalf("%q split into %q", s, got)
		}
		for _, g := range got {
			if strings.TrimSpace(g) == "" {
				t.Fatalf("empty sentence in %q", got)
			}
		}
		_ = LooksUnfinished(s)
		_ = cutText(s, 0.5)
	})
}

func TestSlowerSpeed(t *testing.T) {
	cases := [][2]float64{{1, 0.8}, {0, 0.8}, {0.8, 0.64}, {0.55, MinSpeed}}
	for _, c := range cases {
		if got := SlowerSpeed(c[0]); got < c[1]-1e-9 || got > c[1]+1e-9 {
			t.Errorf("SlowerSpeed(%v) = %v, want %v", c[0], got, c[1])
		}
	}
}

func TestEspeakSpeedAndVoice(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	e, err := NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	const text = "What would you like for breakfast this morning?"
	normal, err := e.Synthesize(context.Background(), text, SpeakOptions{Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	slow, err := e.Synthesize(context.Background(), text, SpeakOptions{Language: "en", Speed: SlowerSpeed(1)})
	if err != nil {
		t.Fatal(err)
	}
	if normal.Rate != 22050 || LevelDB(normal.Samples) < -30 {
		t.Fatalf("normal: %d Hz, %.1f dBFS", normal.Rate, LevelDB(normal.Samples))
	}
	ratio := slow.Duration().Seconds() / normal.Duration().Seconds()
	if ratio < 1.15 || ratio > 1.35 { // 165 → 132 wpm
		t.Errorf("slow_down made speech %.2f× as long (%v vs %v), want about 1.25×", ratio, slow.Duration(), normal.Duration())
	}
	cases := []struct {
		opts SpeakOptions
		want string
	}{
		{SpeakOptions{}, "en-us"},
		{SpeakOptions{Language: "en-GB"}, "en-gb"},
		{SpeakOptions{Language: "de"}, "de"},
		{SpeakOptions{Voice: "alloy", Language: "fr"}, "fr"},
		{SpeakOptions{Voice: "en-gb-scotland"}, "en-gb-scotland"},
	}
	for _, tc := range cases {
		if got := e.VoiceFor(tc.opts); got != tc.want {
			t.Errorf("VoiceFor(%+v) = %q, want %q", tc.opts, got, tc.want)
		}
	}
	if e.WPM(0.1) != 80 || e.WPM(10) != 450 || e.WPM(1) != 165 {
		t.Errorf("WPM bounds: %d %d %d", e.WPM(0.1), e.WPM(10), e.WPM(1))
	}
	if _, err := e.Synthesize(context.Background(), "hello", SpeakOptions{Voice: "xx-nonexistent"}); !errors.Is(err, ErrTTS) {
		t.Errorf("unknown voice: %v", err)
	}
	if _, err := NewEspeak(WithEspeakBinary("/nonexistent/espeak-ng")); !errors.Is(err, ErrTTS) {
		t.Errorf("missing binary: %v", err)
	}
	if _, err := NewEspeak(WithEspeakWPM(20)); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("bad wpm: %v", err)
	}
}

func TestOpenAISpeech(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-test"))
	s, err := NewOpenAISpeech(srv.URL(), "sk-test", srv.Client(), WithTTSModel("tts-1-hd"), WithTTSVoice("nova"))
	if err != nil {
		t.Fatal(err)
	}
	clip, err := s.Synthesize(context.Background(), "Good morning. Welcome to the hotel.", SpeakOptions{Speed: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	if clip.Duration() < time.Second || LevelDB(clip.Samples) < -35 {
		t.Fatalf("clip %v at %d Hz, %.1f dBFS", clip.Duration(), clip.Rate, LevelDB(clip.Samples))
	}
	if _, err := s.Synthesize(context.Background(), "Again.", SpeakOptions{Voice: "echo", Speed: 9}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if r := reqs[0].Speech; r.Model != "tts-1-hd" || r.Voice != "nova" || r.Speed != 0.8 || r.ResponseFormat != "wav" {
		t.Errorf("first request %+v", r)
	}
	if r := reqs[1].Speech; r.Voice != "echo" || r.Speed != 4 {
		t.Errorf("second request %+v (speed must be clamped to 4)", r)
	}
	srv.EnqueueSpeech(openaitest.Status(http.StatusUnauthorized))
	if _, err := s.Synthesize(context.Background(), "Fails.", SpeakOptions{}); !errors.Is(err, ErrTTS) {
		t.Errorf("401: %v", err)
	}
	if _, err := NewOpenAISpeech("", "k", nil); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("empty URL: %v", err)
	}
}
