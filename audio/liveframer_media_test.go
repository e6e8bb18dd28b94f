package audio

import (
	"slices"
	"testing"
	"time"
)

// mediaPacket is one 20 ms packet of a network sender: where it is on the sender's clock and
// when it reached the receiver (both from the start of the test).
type mediaPacket struct {
	media, arrive time.Duration
	stream        uint64
	samples       []int16
	quiet         bool // a DTX frame: the sender says silence follows (Run.Quiet)
}

// sendAt splits s into 20 ms packets from media time from, arriving as arrive says.
func sendAt(s []int16, from time.Duration, stream uint64, arrive func(media time.Duration) time.Duration) []mediaPacket {
	var out []mediaPacket
	for i := 0; i < len(s); i += FrameSamples {
		m := from + samplesDuration(i)
		out = append(out, mediaPacket{media: m, arrive: arrive(m), stream: stream, samples: s[i:min(i+FrameSamples, len(s))]})
	}
	return out
}

// feedMedia plays packets into a framer as the room source does: the receiver ticks every
// 20 ms except inside stalls (it gets no CPU there), and audio that is waiting is written
// before a tick. It runs on until the last packet's arrival plus tail.
func feedMedia(t *testing.T, l *LiveFramer, pkts []mediaPacket, stalls [][2]time.Duration, tail time.Duration) []Frame {
	t.Helper()
	t0 := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	pkts = slices.Clone(pkts)
	slices.SortStableFunc(pkts, func(a, b mediaPacket) int { return int(a.arrive - b.arrive) })
	end := pkts[len(pkts)-1].arrive + tail
	stalled := func(at time.Duration) (time.Duration, bool) {
		for _, s := range stalls {
			if at >= s[0] && at < s[1] {
				return s[1], true
			}
		}
		return 0, false
	}
	var frames []Frame
	next := 0
	for at := FrameDuration; at <= end; at += FrameDuration {
		if until, ok := stalled(at); ok {
			at = until - FrameDuration
			continue
		}
		for next < len(pkts) && pkts[next].arrive <= at {
			p := pkts[next]
			out, err := l.WriteMedia(Run{Samples: p.samples, Rate: SampleRate, Media: p.media, Stream: p.stream, Received: t0.Add(at), Quiet: p.quiet})
			if err != nil {
				t.Fatal(err)
			}
			frames = append(frames, out...)
			next++
		}
		frames = append(frames, l.Tick(t0.Add(at))...)
	}
	return frames
}

// realSamples is what the frames carry of the sender's audio, in order: the frames that are
// not Missing, with the silence a clock jump put in them left in.
func missingBefore(frames []Frame, ms int64) int {
	n := 0
	for _, f := range frames {
		if f.Missing && f.StartMs() < ms {
			n++
		}
	}
	return n
}

// TestLiveFramerMediaTime feeds a framer audio with its sender's media times and checks that
// audio a busy receiver reads late is never counted as silence while a sender that stops is.
func TestLiveFramerMediaTime(t *testing.T) {
	voice := sine(220, SampleRate, 2*SampleRate, 8000) // 2 s of sound
	quiet := make([]int16, SampleRate/5)               // 200 ms of silence
	line := append(slices.Clone(voice), quiet...)      // a line, then the sender stops
	onTime := func(m time.Duration) time.Duration { return m + 25*time.Millisecond }
	cases := []struct {
		name   string
		pkts   []mediaPacket
		stalls [][2]time.Duration
		tail   time.Duration
		// No Missing frame may start before noneBefore ms; at least minMissing, at most
		// maxMissing in all.
		noneBefore             int64
		minMissing, maxMissing int
	}{
		{
			name: "on time: the silence after the line is counted on the clock",
			pkts: sendAt(line, 0, 1, onTime), tail: time.Second,
			noneBefore: 2200, minMissing: 40, maxMissing: 50,
		},
		{
			// The receiver's pipeline hands audio on in bursts, each 250 ms after its first
			// packet was sent, while its clock ticks on time: the line is whole.
			name: "late bursts while the clock ticks on time",
			pkts: sendAt(line, 0, 1, func(m time.Duration) time.Duration {
				return (m/(250*time.Millisecond) + 1) * 250 * time.Millisecond
			}),
			tail: time.Second, noneBefore: 2200, minMissing: 30, maxMissing: 50,
		},
		{
			// The whole process gets no CPU for 700 ms mid-line: no ticks and no audio, then
			// the audio of that time arrives with the first ticks after.
			name: "a stalled receiver",
			pkts: sendAt(line, 0, 1, func(m time.Duration) time.Duration {
				if m >= 500*time.Millisecond {
					return max(onTime(m), 1260*time.Millisecond) // in order, as a jitter buffer hands it on
				}
				return onTime(m)
			}),
			stalls: [][2]time.Duration{{520 * time.Millisecond, 1220 * time.Millisecond}},
			tail:   time.Second, noneBefore: 2200, minMissing: 30, maxMissing: 50,
		},
		{
			// Opus DTX: after the line, one packet every 400 ms; the sender's clock says how
			// much silence there was.
			name: "DTX on the sender's clock",
			pkts: func() []mediaPacket {
				p := sendAt(line, 0, 1, onTime)
				for i := range 5 {
					m := 2200*time.Millisecond + time.Duration(i+1)*400*time.Millisecond
					p = append(p, mediaPacket{media: m, arrive: onTime(m), stream: 1, samples: make([]int16, FrameSamples)})
				}
				return p
			}(),
			noneBefore: 2200, minMissing: 90, maxMissing: 100,
		},
		{
			// The candidate rejoins with a new track whose clock starts again at zero: the
			// timeline goes on, and the new line is whole.
			name: "a new stream continues the timeline",
			pkts: append(sendAt(line, 0, 1, onTime),
				sendAt(line, 0, 2, func(m time.Duration) time.Duration { return 3*time.Second + onTime(m) })...),
			tail: 0, noneBefore: 2200, minMissing: 30, maxMissing: 45,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLiveFramer(0)
			if err != nil {
				t.Fatal(err)
			}
			frames := feedMedia(t, l, tc.pkts, tc.stalls, tc.tail)
			missing, sent, got := 0, 0, 0
			for i, f := range frames {
				if len(f.Samples) != FrameSamples || f.Offset != int64(i*FrameSamples) {
					t.Fatalf("frame %d: %d samples at %d, want %d at %d", i, len(f.Samples), f.Offset, FrameSamples, i*FrameSamples)
				}
				if f.Missing {
					missing++
					continue
				}
				for _, s := range f.Samples {
					if s != 0 {
						got++
					}
				}
			}
			for _, p := range tc.pkts {
				for _, s := range p.samples {
					if s != 0 {
						sent++
					}
				}
			}
			if n := missingBefore(frames, tc.noneBefore); n > 0 {
				var at []int64
				for _, f := range frames {
					if f.Missing {
						at = append(at, f.StartMs())
					}
				}
				t.Errorf("%d missing frames inside the line (before %d ms): late audio counted as silence (at %v)", n, tc.noneBefore, at)
			}
			if got != sent {
				t.Errorf("%d sounding samples framed, %d sent: audio lost", got, sent)
			}
			if missing < tc.minMissing || missing > tc.maxMissing {
				t.Errorf("%d missing frames, want %d..%d", missing, tc.minMissing, tc.maxMissing)
			}
		})
	}
}

// TestLiveFramerLearnsLateness: audio after a silence that arrives later than the tolerance
// is kept whole after the silence the clock already counted, and the tolerance grows, so the
// same delay a second time is not a gap.
func TestLiveFramerLearnsLateness(t *testing.T) {
	quiet := make([]int16, SampleRate/2)               // 500 ms of silence
	voice := sine(220, SampleRate, SampleRate/2, 8000) // 500 ms of sound
	delay := func(from, to time.Duration) func(time.Duration) time.Duration {
		return func(m time.Duration) time.Duration {
			if m >= from && m < to {
				return to + 20*time.Millisecond // held up, then all at once
			}
			return m + 20*time.Millisecond
		}
	}
	var pkts []mediaPacket
	pkts = append(pkts, sendAt(quiet, 0, 1, delay(0, 0))...)
	pkts = append(pkts, sendAt(voice, 500*time.Millisecond, 1, delay(500*time.Millisecond, 900*time.Millisecond))...)
	pkts = append(pkts, sendAt(quiet, time.Second, 1, delay(0, 0))...)
	pkts = append(pkts, sendAt(voice, 1500*time.Millisecond, 1, delay(1500*time.Millisecond, 1900*time.Millisecond))...)
	l, err := NewLiveFramer(0)
	if err != nil {
		t.Fatal(err)
	}
	frames := feedMedia(t, l, pkts, nil, 0)
	var missingAt []int64
	sound := 0
	for _, f := range frames {
		if f.Missing {
			missingAt = append(missingAt, f.StartMs())
		} else if LevelDB(f.Samples) > -30 {
			sound++
		}
	}
	if sound != 50 {
		t.Errorf("%d frames of sound, want all 50", sound)
	}
	if len(missingAt) == 0 {
		t.Fatal("the first delay was not counted as silence: the test does not test what it says")
	}
	for _, ms := range missingAt {
		if ms >= 1300 {
			t.Errorf("missing frame at %d ms: the second delay was counted as silence again (missing at %v)", ms, missingAt)
			break
		}
	}
}

// TestLiveFramerQuietSender: a sender that says silence follows (an Opus DTX frame, as browsers
// send some 200 ms into a silence) has the time after it counted as silence once it is
// QuietGapTolerance overdue, not the gap tolerance, so the end of a turn is not noticed late on
// that path; and speech it resumes with, arriving later than that, is still kept whole.
func TestLiveFramerQuietSender(t *testing.T) {
	voice := sine(220, SampleRate, 2*SampleRate, 8000) // 2 s of sound
	onTime := func(m time.Duration) time.Duration { return m + 25*time.Millisecond }
	line := sendAt(append(slices.Clone(voice), make([]int16, SampleRate/5)...), 0, 1, onTime) // then 200 ms of silence
	dtx := mediaPacket{media: 2200 * time.Millisecond, arrive: onTime(2200 * time.Millisecond), stream: 1,
		samples: make([]int16, FrameSamples), quiet: true}
	t0 := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC) // feedMedia's

	t.Run("the silence after a DTX frame is counted at once", func(t *testing.T) {
		l, err := NewLiveFramer(0)
		if err != nil {
			t.Fatal(err)
		}
		frames := feedMedia(t, l, append(slices.Clone(line), dtx), nil, time.Second)
		const at = 2400 // ms on the sender's clock
		for _, f := range frames {
			if f.StartMs() < at {
				continue
			}
			if !f.Missing {
				t.Fatalf("frame at %d ms not missing", f.StartMs())
			}
			late := f.Captured.Sub(t0) - onTime(at*time.Millisecond)
			if late > QuietGapTolerance+FrameDuration {
				t.Errorf("the silence at %d ms was counted %v after it would have arrived, want at most %v", at, late, QuietGapTolerance+FrameDuration)
			}
			return
		}
		t.Fatalf("no frame at %d ms", at)
	})

	t.Run("speech resumed after a DTX frame is kept whole", func(t *testing.T) {
		l, err := NewLiveFramer(0)
		if err != nil {
			t.Fatal(err)
		}
		resumed := sendAt(sine(330, SampleRate, SampleRate/2, 8000), 2400*time.Millisecond, 1, func(m time.Duration) time.Duration {
			return onTime(m) + 60*time.Millisecond // later than QuietGapTolerance
		})
		pkts := append(append(slices.Clone(line), dtx), resumed...)
		frames := feedMedia(t, l, pkts, nil, time.Second)
		sent, got := 0, 0
		for _, p := range pkts {
			for _, s := range p.samples {
				if s != 0 {
					sent++
				}
			}
		}
		for _, f := range frames {
			for _, s := range f.Samples {
				if s != 0 {
					got++
				}
			}
		}
		if got != sent {
			t.Errorf("%d sounding samples framed, %d sent: words lost", got, sent)
		}
	})
}
