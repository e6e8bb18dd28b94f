package audio

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/testutil"
)

// The candidate turns of the example rehearsal script (examples/hotel-rehearsal.yaml).
var rehearsalTurns = testutil.RehearsalSaid()

func TestSphinxRecognisesScriptedTurnsThroughTheAudioPath(t *testing.T) {
	testutil.SkipIfShort(t, "pocketsphinx and espeak-ng")
	sp := newTestSphinx(t, rehearsalTurns)
	for _, turn := range rehearsalTurns {
		t.Run(turn, func(t *testing.T) {
			tr, timing, err := SpeakAndRecognize(context.Background(), turn, sp, ScriptedConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if want := NormalizeForGrammar(turn); tr.Text != want {
				t.Errorf("heard %q, want %q", tr.Text, want)
			}
			if !tr.HasConfidence || tr.MinConfidence <= 0 || tr.Confidence > 1 || len(tr.Segments) == 0 {
				t.Errorf("confidence %v min %v over %d segments", tr.Confidence, tr.MinConfidence, len(tr.Segments))
			}
			if timing.Utterances != 1 || timing.EndpointingMs < 500 || timing.EndpointingMs > 520 {
				t.Errorf("timing %+v", timing)
			}
		})
	}
}

func TestSphinxConstruction(t *testing.T) {
	testutil.SkipIfShort(t, "pocketsphinx and espeak-ng")
	sp, err := NewSphinx([]string{"the zorblaxian quibbet"})
	if err != nil || strings.Join(sp.Generated, ",") == "" {
		t.Fatalf("words pronounced by espeak-ng: %v %v", sp, err)
	}
	sp.Close()
	if _, err := NewSphinx([]string{"hello"}, WithSphinxDictionary("/nonexistent.dict")); !errors.Is(err, ErrSTT) {
		t.Errorf("missing dictionary: %v", err)
	}
	if _, err := NewSphinx([]string{" ,. "}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("no phrases: %v", err)
	}
	if _, err := NewSphinx([]string{"hello"}, WithSphinxBinary("/nonexistent/ps")); !errors.Is(err, ErrSTT) {
		t.Errorf("missing binary: %v", err)
	}
	sp, err = NewSphinx([]string{"hello there"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Transcribe(context.Background(), Utterance{Samples: make([]int16, 100)}); !errors.Is(err, ErrClosed) {
		t.Errorf("after close: %v", err)
	}
}

func TestNormalizeForGrammar(t *testing.T) {
	cases := map[string]string{
		"Hello, I'm Priya!":      "hello i'm priya",
		"grab-and-go   counter.": "grab and go counter",
		"'quoted' words":         "quoted words",
		"":                       "",
	}
	for in, want := range cases {
		if got := NormalizeForGrammar(in); got != want {
			t.Errorf("NormalizeForGrammar(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseSphinx(f *testing.F) {
	f.Add("is breakfast\nis 0.000 0.130 1.000000\n<sil> 1.8 2.0 1\n")
	f.Add("a 1 2 x\n\n")
	f.Fuzz(func(t *testing.T, out string) {
		tr := parseSphinx(out)
		if tr.Confidence < 0 || tr.Confidence > 1 || tr.MinConfidence > tr.Confidence+1e-9 {
			t.Fatalf("confidence %v min %v", tr.Confidence, tr.MinConfidence)
		}
	})
}

func TestEspeakPhonesToARPAbet(t *testing.T) {
	cases := []struct{ in, want string }{
		{"pr'Ij@", "P R IH Y AH"},
		{"r'oUt#@", "R OW T AH"},
		{"gr'ab", "G R AE B"},
		{"l'eIb3", "L EY B ER"},
		{"h,0spI2t'alI#t#i", "HH AA S P IH T AE L IH T IY"},
		{"tS'i:z", "CH IY Z"},
	}
	for _, tc := range cases {
		got, err := espeakPhonesToARPAbet(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("espeakPhonesToARPAbet(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "'", "qq"} {
		if got, err := espeakPhonesToARPAbet(bad); err == nil {
			t.Errorf("espeakPhonesToARPAbet(%q) = %q, want an error", bad, got)
		}
	}
}
