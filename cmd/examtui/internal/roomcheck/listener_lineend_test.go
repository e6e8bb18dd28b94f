package roomcheck

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

// TestAwaitReplyWaitsForTheBotsLineEnd plays, on a fake clock, an examiner reply whose track
// (starved) sends nothing for a second in the middle of the line, longer than the tail of
// silence. When the bot says when its line is over (line_end) the reply is the whole line;
// a bot that never says it (another agent framework) keeps the tail-silence rule. The old
// harness took the gap for the end of the reply (1 s of audio) and spoke over the rest.
func TestAwaitReplyWaitsForTheBotsLineEnd(t *testing.T) {
	const tail = 600 * time.Millisecond
	type end struct {
		atMs    int
		through int64
		idle    bool
	}
	cases := []struct {
		name      string
		ends      []end
		ownLine   bool
		botEnds   bool // the listener knows the bot sends line_end
		wantAudio time.Duration
	}{
		{name: "the bot's line_end after the line", ends: []end{{atMs: 3050, through: 5, idle: true}}, ownLine: true,
			botEnds: true, wantAudio: 3 * time.Second},
		{name: "a bot without line_end: the tail of silence", wantAudio: time.Second},
		{name: "examtui's bot whose line_end was lost: a long silence", botEnds: true, wantAudio: 3 * time.Second},
		{name: "an earlier reply's line_end does not end this one",
			ends: []end{{atMs: -500, through: 4, idle: true}, {atMs: 3050, through: 5, idle: true}}, ownLine: true,
			wantAudio: 3 * time.Second},
		{name: "a line_end with more to say does not end it",
			ends: []end{{atMs: 1050, through: 0, idle: false}, {atMs: 3050, through: 5, idle: true}}, ownLine: true,
			wantAudio: 3 * time.Second},
		{name: "an earlier line_end, and this reply's lost: a long silence", ends: []end{{atMs: -500, through: 4, idle: true}},
			wantAudio: 3 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newListener()
				l.botEnds = tc.botEnds
				base := time.Now().Add(time.Second)
				l.spokenLine(4)
				ctx := context.Background()
				fed := make(chan struct{})
				go func() {
					defer close(fed)
					frame := voicedFrame()
					for _, e := range tc.ends {
						if e.atMs < 0 {
							l.lineEnd(livekit.LineEnd{LineEnd: voicepath.LineEnd{Seq: e.through, Idle: e.idle, Through: e.through}, Received: time.Now()})
						}
					}
					time.Sleep(time.Until(base))
					if tc.ownLine {
						l.spokenLine(5)
					}
					// 1 s of the line, a second with nothing sent, the last second; each line_end
					// in its 20 ms.
					for ms := 0; ms < 3100; ms += 20 {
						for _, e := range tc.ends {
							if e.atMs >= ms && e.atMs < ms+20 {
								l.lineEnd(livekit.LineEnd{LineEnd: voicepath.LineEnd{Seq: 5, Idle: e.idle, Through: e.through}, Received: time.Now()})
							}
						}
						if ms < 1000 || (ms >= 2000 && ms < 3000) {
							l.add(frame, time.Now())
						}
						time.Sleep(20 * time.Millisecond)
					}
				}()
				r, err := l.awaitReply(ctx, base.Add(-100*time.Millisecond), waitOpts{firstTimeout: 5 * time.Second, tail: tail,
					maxReply: time.Minute, ownLine: func() bool { return tc.ownLine }})
				<-fed
				if err != nil {
					t.Fatal(err)
				}
				if r.duration() != tc.wantAudio || r.capped {
					t.Errorf("reply audio %v (capped %v), want %v", r.duration(), r.capped, tc.wantAudio)
				}
			})
		})
	}
}

// voicedFrame is one 20 ms frame the listener counts as the examiner's voice.
func voicedFrame() []int16 {
	frame := make([]int16, 320)
	for i := range frame {
		frame[i] = 4000 * int16(1-2*(i%2))
	}
	return frame
}
