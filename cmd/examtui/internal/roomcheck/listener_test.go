package roomcheck

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// speakAt adds voiced (or silent) 20 ms frames to l from..to.
func speakAt(l *listener, from, to time.Time, voiced bool) {
	amp := int16(0)
	if voiced {
		amp = 4000
	}
	frame := make([]int16, 320)
	for i := range frame {
		frame[i] = amp * int16(1-2*(i%2))
	}
	for at := from; at.Before(to); at = at.Add(frameLen) {
		l.add(frame, at)
	}
}

func TestAwaitReply(t *testing.T) {
	base := time.Now().Add(-10 * time.Second)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	transportDown := errors.New("down")
	cases := []struct {
		name        string
		speech      [][2]int // voiced stretches, ms after base
		since       int
		alive       error
		wantErr     error
		wantLatency time.Duration
		wantEarly   time.Duration
		wantAudio   time.Duration
	}{
		{name: "a reply after the candidate finished", speech: [][2]int{{1000, 3000}}, since: 600,
			wantLatency: 400 * time.Millisecond, wantAudio: 2 * time.Second},
		{name: "the previous reply is not this one", speech: [][2]int{{0, 500}, {1400, 2000}}, since: 800,
			wantLatency: 600 * time.Millisecond, wantAudio: 600 * time.Millisecond},
		{name: "audio that began before the candidate finished is early, not a 0 ms reply",
			speech: [][2]int{{1000, 3000}}, since: 1300, wantEarly: 300 * time.Millisecond, wantAudio: 2 * time.Second},
		{name: "no reply: first-chunk timeout", speech: [][2]int{{0, 500}}, since: 800, wantErr: ErrFirstChunkTimeout},
		{name: "dead transport", since: 800, alive: transportDown, wantErr: transportDown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newListener()
			speakAt(l, at(-200), at(0), false)
			for _, s := range tc.speech {
				speakAt(l, at(s[0]), at(s[1]), true)
			}
			var alive func(time.Duration) error
			if tc.alive != nil {
				alive = func(time.Duration) error { return tc.alive }
			}
			r, err := l.awaitReply(context.Background(), at(tc.since), waitOpts{firstTimeout: 50 * time.Millisecond,
				tail: 100 * time.Millisecond, maxReply: time.Minute, alive: alive})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := r.latency(at(tc.since)); got != tc.wantLatency || r.early != tc.wantEarly || r.duration() != tc.wantAudio {
				t.Errorf("latency %v early %v audio %v; want %v, %v, %v", got, r.early, r.duration(), tc.wantLatency, tc.wantEarly, tc.wantAudio)
			}
		})
	}
}

func TestListenerRuns(t *testing.T) {
	base := time.Now()
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	l := newListener()
	speakAt(l, at(0), at(400), true)
	speakAt(l, at(500), at(700), true) // 100 ms gap: the same run
	speakAt(l, at(1200), at(1500), true)
	runs := l.runs(at(0), at(2000))
	if len(runs) != 2 || !runs[0].start.Equal(at(0)) || !runs[0].end.Equal(at(700)) || !runs[1].start.Equal(at(1200)) {
		t.Fatalf("runs = %+v", runs)
	}
	if got := l.runs(at(800), at(1000)); len(got) != 0 {
		t.Errorf("runs in a quiet stretch = %+v", got)
	}
}

func TestOptionsValidate(t *testing.T) {
	ok := Options{URL: "ws://127.0.0.1:7880", APIKey: "k", APISecret: "s"}.WithDefaults()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	if ok.ReplyTimeout != 60*time.Second {
		t.Errorf("default reply timeout %v, want 60s", ok.ReplyTimeout)
	}
	cases := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"zero tail", func(o *Options) { o.TailSilence = 0 }, "--tail-silence must be a positive duration"},
		{"negative cap", func(o *Options) { o.MaxReply = -time.Second }, "--max-reply must be a positive duration"},
		{"zero reply timeout", func(o *Options) { o.ReplyTimeout = 0 }, "--reply-timeout must be a positive duration"},
		{"no credentials", func(o *Options) { o.APISecret = "" }, "no credentials"},
		{"unknown interruption", func(o *Options) { o.Interrupt = "shout" }, `--interrupt "shout": want native or timing`},
	}
	for _, tc := range cases {
		o := ok
		tc.edit(&o)
		err := o.Validate()
		if !errors.Is(err, ErrInvalidOption) || !contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestIntoLine: an interrupt step waits for 400 ms of the examiner's voice heard, counted in
// audio received: a track that sends late (a starved bot) delivers it late, and the step
// waits for it rather than for the clock.
func TestIntoLine(t *testing.T) {
	l := newListener()
	since := time.Now()
	speakAt(l, since.Add(-time.Second), since, true) // an earlier line: not counted
	type result struct {
		into bool
		err  error
	}
	done := make(chan result, 1)
	go func() {
		into, err := l.intoLine(t.Context(), since, time.Now().Add(30*time.Second), 400*time.Millisecond)
		done <- result{into, err}
	}()
	// 300 ms of voice, then silence, then 100 ms more, arriving whenever the track sends it.
	speakAt(l, since.Add(time.Millisecond), since.Add(301*time.Millisecond), true)
	speakAt(l, since.Add(301*time.Millisecond), since.Add(2*time.Second), false)
	select {
	case r := <-done:
		t.Fatalf("returned %+v after 300 ms of the line", r)
	default:
	}
	speakAt(l, since.Add(2*time.Second), since.Add(2100*time.Millisecond), true)
	if r := <-done; !r.into || r.err != nil {
		t.Fatalf("intoLine = %+v, want true", r)
	}
	if into, err := l.intoLine(t.Context(), since.Add(time.Hour), time.Now().Add(50*time.Millisecond), time.Millisecond); into || err != nil {
		t.Fatalf("with no voice by the deadline: %v, %v; want false, nil", into, err)
	}
}
