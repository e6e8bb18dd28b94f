package audio

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
)

// silentSynth makes each sentence 100 ms of silence, at once.
type silentSynth struct{}

func (silentSynth) Synthesize(context.Context, string, SpeakOptions) (Clip, error) {
	return Clip{Samples: make([]int16, SampleRate/10), Rate: SampleRate}, nil
}

// holdSink is a Pauser whose Play waits for a turn (play) to be given, so a test decides when
// each clip "has played"; it counts pauses and resumes.
type holdSink struct {
	mu              sync.Mutex
	held            bool
	pauses, resumes int
	play            chan struct{}
	stop            chan struct{}
}

func (s *holdSink) Play(ctx context.Context, c Clip) (PlayResult, error) {
	select {
	case <-s.play:
		return PlayResult{Played: c.Duration(), Total: c.Duration()}, nil
	case <-s.stop:
		return PlayResult{Total: c.Duration(), Interrupted: true}, nil
	case <-ctx.Done():
		return PlayResult{Total: c.Duration(), Interrupted: true}, ctx.Err()
	}
}

func (s *holdSink) Pause()  { s.mu.Lock(); s.held = true; s.pauses++; s.mu.Unlock() }
func (s *holdSink) Resume() { s.mu.Lock(); s.held = false; s.resumes++; s.mu.Unlock() }
func (s *holdSink) Stop() {
	s.mu.Lock()
	s.held = false
	s.mu.Unlock()
	select {
	case s.stop <- struct{}{}:
	default:
	}
}
func (s *holdSink) Close() error { return nil }

func (s *holdSink) state() (held bool, pauses, resumes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held, s.pauses, s.resumes
}

// TestPauseSpeaking: PauseSpeaking holds a line being said once (a second call is no second
// pause), ResumeSpeaking plays it on; a line that ends while held (its audio had all left)
// releases the hold, so the next line is not born held; no line, no pause; a sink that cannot
// pause is never asked to.
func TestPauseSpeaking(t *testing.T) {
	sink := &holdSink{play: make(chan struct{}), stop: make(chan struct{}, 1)}
	v, err := NewVoice(nil, nil, silentSynth{}, sink)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.PauseSpeaking() {
		t.Fatal("paused with no line being said")
	}
	done := make(chan SpeakResult, 1)
	go func() {
		r, _ := v.Speak(context.Background(), "This is the first sentence. This is the second one.", SpeakOptions{})
		done <- r
	}()
	testutil.Eventually(t, 5*time.Second, func() bool { return v.State() == StateExaminerSpeaking }, "the line to start")
	if !v.PauseSpeaking() {
		t.Fatal("the line was not held")
	}
	if !v.PauseSpeaking() { // held already: no second pause
		t.Fatal("a held line reported not held")
	}
	if held, pauses, _ := sink.state(); !held || pauses != 1 {
		t.Fatalf("held %v after %d pauses, want held after 1", held, pauses)
	}
	v.ResumeSpeaking()
	v.ResumeSpeaking()
	if held, _, resumes := sink.state(); held || resumes != 1 {
		t.Fatalf("held %v after %d resumes, want played on after 1", held, resumes)
	}
	sink.play <- struct{}{} // "One." played
	if !v.PauseSpeaking() {
		t.Fatal("the second sentence was not held")
	}
	sink.play <- struct{}{} // "Two." had all left before the pause: the line ends while held
	r := testutil.Recv(t, done, 5*time.Second, "the line to end")
	if r.Interrupted || r.PlayedText != "This is the first sentence. This is the second one." {
		t.Errorf("heard %q (interrupted %v), want the whole line", r.PlayedText, r.Interrupted)
	}
	if held, _, resumes := sink.state(); held || resumes != 2 {
		t.Fatalf("the hold outlived its line: held %v, %d resumes", held, resumes)
	}
	if v.PauseSpeaking() {
		t.Fatal("paused after the line ended")
	}

	plain, err := NewVoice(nil, nil, silentSynth{}, &stopSink{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	go func() { _, _ = plain.Speak(context.Background(), "One.", SpeakOptions{}) }()
	testutil.Eventually(t, 5*time.Second, func() bool { return plain.State() == StateExaminerSpeaking }, "the line to start")
	if plain.PauseSpeaking() {
		t.Fatal("a sink that cannot pause was paused")
	}
	plain.StopSpeaking()
}

// stopSink plays until stopped.
type stopSink struct {
	once, stopped sync.Once
	stop          chan struct{}
}

func (s *stopSink) ch() chan struct{} {
	s.once.Do(func() { s.stop = make(chan struct{}) })
	return s.stop
}
func (s *stopSink) Play(ctx context.Context, c Clip) (PlayResult, error) {
	select {
	case <-s.ch():
	case <-ctx.Done():
	}
	return PlayResult{Total: c.Duration(), Interrupted: true}, nil
}
func (s *stopSink) Stop()        { s.stopped.Do(func() { close(s.ch()) }) }
func (s *stopSink) Close() error { return nil }
