package audio

import (
	"context"
	"errors"
	"testing"
	"time"
)

// feedFrames feeds s to the stream in 20 ms frames, as a capture loop does.
func feedFrames(tb testing.TB, st RecognitionStream, s []int16) {
	tb.Helper()
	for i := 0; i < len(s); i += FrameSamples {
		if err := st.Feed(s[i:min(i+FrameSamples, len(s))]); err != nil {
			tb.Fatal(err)
		}
	}
}

func newTestStream(tb testing.TB, phrases []string) (*Sphinx, *sphinxStream) {
	tb.Helper()
	sp := newTestSphinx(tb, phrases)
	st, err := sp.newStream(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return sp, st
}

// The same espeak-ng turns through the long-lived recogniser, one after another on one
// process, agree with the grammar (and so with the one-shot path).
func TestSphinxStreamRecognisesTurnsOnOneProcess(t *testing.T) {
	_, st := newTestStream(t, rehearsalTurns)
	pid := st.proc.cmd.Process.Pid
	ctx := context.Background()
	for _, turn := range rehearsalTurns {
		st.Reset()
		feedFrames(t, st, speak16k(t, turn))
		tr, err := st.Final(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := NormalizeForGrammar(turn); tr.Text != want || !tr.IsFinal || tr.Duration < time.Second {
			t.Errorf("heard %q (final %v, %v), want %q", tr.Text, tr.IsFinal, tr.Duration, want)
		}
	}
	if st.proc.cmd.Process.Pid != pid {
		t.Errorf("the recogniser was restarted (pid %d → %d)", pid, st.proc.cmd.Process.Pid)
	}
}

// A Cut at a pause gives the words so far; when the candidate goes on, the next Cut hears the
// whole turn (the pass is replayed from the turn's start), and a Cut with nothing fed since
// returns the same answer without asking the recogniser again.
func TestSphinxStreamCutThenResume(t *testing.T) {
	whole := "Most guests at that time are business travellers who are in a hurry."
	first := "Most guests at that time"
	_, st := newTestStream(t, []string{whole, first, "Sorry, could you repeat the question?"})
	ctx := context.Background()
	a := speak16k(t, first)
	full := speak16k(t, whole)
	_, aEnd := speechBounds(a)
	st.Reset()
	feedFrames(t, st, a[:aEnd+FrameSamples*10])
	tr, err := st.Final(ctx)
	if err != nil || tr.Text != NormalizeForGrammar(first) {
		t.Fatalf("at the pause: %q, %v", tr.Text, err)
	}
	again := st.Cut()
	if !again.Done() {
		t.Error("a second Cut with nothing fed asked the recogniser again")
	}
	// The candidate "goes on": a fresh turn standing for the resumed one, fed in two parts.
	st.Reset()
	feedFrames(t, st, full[:len(full)/2])
	if tr, err = st.Final(ctx); err != nil {
		t.Fatal(err)
	}
	feedFrames(t, st, full[len(full)/2:])
	if tr, err = st.Final(ctx); err != nil || tr.Text != NormalizeForGrammar(whole) {
		t.Fatalf("after resuming: %q, %v", tr.Text, err)
	}
}

// A recogniser that dies is reported at once (never a stalled turn) and restarted for a later
// turn.
func TestSphinxStreamRecogniserDies(t *testing.T) {
	turn := rehearsalTurns[1]
	_, st := newTestStream(t, rehearsalTurns)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	speech := speak16k(t, turn)
	st.Reset()
	feedFrames(t, st, speech[:len(speech)/2])
	old := st.proc
	old.kill()
	<-old.done
	start := time.Now()
	if _, err := st.Final(ctx); !errors.Is(err, ErrSTT) {
		t.Fatalf("final on a dead recogniser: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("a dead recogniser took %v to report", took)
	}
	// Past the restart limit a new turn gets a new process.
	time.Sleep(sphinxRestartEvery - time.Since(st.lastStart) + 10*time.Millisecond)
	st.Reset()
	feedFrames(t, st, speech)
	tr, err := st.Final(ctx)
	if err != nil || tr.Text != NormalizeForGrammar(turn) {
		t.Fatalf("after restart: %q, %v", tr.Text, err)
	}
	if st.proc == old {
		t.Error("not restarted")
	}
}

func TestSphinxStreamEdges(t *testing.T) {
	sp, st := newTestStream(t, []string{"hello there"})
	if _, err := st.Final(context.Background()); !errors.Is(err, ErrNoSpeech) {
		t.Errorf("nothing fed: %v", err)
	}
	st.Reset()
	feedFrames(t, st, make([]int16, SampleRate/2))
	tr, err := st.Final(context.Background())
	if err != nil || tr.Text != "" {
		t.Errorf("silence: %q %v", tr.Text, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Feed(make([]int16, 10)); !errors.Is(err, ErrClosed) {
		t.Errorf("feed after close: %v", err)
	}
	if _, err := st.Final(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("final after close: %v", err)
	}
	sp.Close()
	if _, err := sp.NewStream(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("stream of a closed recogniser: %v", err)
	}
}

func TestParseHypseg(t *testing.T) {
	cases := []struct {
		line, id, text string
		bad            bool
	}{
		{"u1 S 0 T -9628 A -9291 L -337 0 -395 0 i 10 -738 0 would 27 -291 -337 <sil> 295", "u1", "i would", false},
		{"u2 S 0 T 0 A 0 L 0 0", "u2", "", false},
		{"u3 S 0 T 1 A 1 L 0 0 1 2 read(2) 5 1 2 [NOISE] 20", "u3", "read", false},
		{"u4 S 0 T 1 A 1 L 0 0 1 2 read", "u4", "", true},
		{"u5 S 0 T 1 A 1 L 0 x 1 2 read 9", "u5", "", true},
		{"garbage", "garbage", "", true},
		{"", "", "", true},
	}
	for _, tc := range cases {
		id, tr, err := parseHypseg(tc.line)
		if id != tc.id || tr.Text != tc.text || (err != nil) != tc.bad {
			t.Errorf("parseHypseg(%q) = %q %q %v", tc.line, id, tr.Text, err)
		}
		if err == nil && tr.Text != "" && (tr.HasConfidence || tr.Confidence != 1) {
			t.Errorf("parseHypseg(%q): confidence %v (has %v)", tc.line, tr.Confidence, tr.HasConfidence)
		}
	}
}

func FuzzParseHypseg(f *testing.F) {
	f.Add("u1 S 0 T -9628 A -9291 L -337 0 -395 0 i 10 -738 0 would 27 -291 -337 <sil> 295")
	f.Add("u2 S 0 T 0 A 0 L 0 0")
	f.Fuzz(func(t *testing.T, line string) {
		_, tr, err := parseHypseg(line)
		if err != nil && !errors.Is(err, ErrSTT) {
			t.Fatalf("error not ErrSTT: %v", err)
		}
		if tr.Confidence < 0 || tr.Confidence > 1 {
			t.Fatalf("confidence %v", tr.Confidence)
		}
	})
}
