package livekit

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"
)

// How many refused messages of one sender the examiners are told about one by one, and how
// often they are told how many more there were. A participant that floods the bot's topics
// (10,000 packets in seconds) would otherwise send every examiner one warning per packet,
// burying the exam under copies of it.
const (
	rejectBurst  = 3
	rejectWindow = 10 * time.Second
	// rejectSendersKept bounds the tallies kept; idle ones are dropped first.
	rejectSendersKept = 1024
)

// rejectLimiter decides, per sender, which refused messages are reported on their own and
// aggregates the rest: a sender gets rejectBurst reports in a window of rejectWindow; what it
// sends beyond that is counted, and one report per window says how many ("refused 9,950 more
// messages from X in 16 s"). A window in which the sender stays quiet starts it afresh.
type rejectLimiter struct {
	burst  int
	window time.Duration
	report func(Rejection, string) // the aggregate of what was held, as text, with the last rejection

	mu      sync.Mutex
	senders map[string]*rejectTally
	closed  bool
}

// rejectTally is one sender's window.
type rejectTally struct {
	start     time.Time // the window's start
	reported  int       // reported one by one in this window
	held      int       // refused since the last aggregate and not reported yet
	firstHeld time.Time
	lastHeld  time.Time
	last      Rejection
	timer     *time.Timer // sends the aggregate at the end of the window; nil when none is due
}

func newRejectLimiter(burst int, window time.Duration, report func(Rejection, string)) *rejectLimiter {
	return &rejectLimiter{burst: burst, window: window, report: report, senders: map[string]*rejectTally{}}
}

// allow reports whether rej is reported on its own; otherwise it is counted for the sender's
// next aggregate.
func (l *rejectLimiter) allow(rej Rejection, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.senders[rej.Sender]
	if t == nil || (t.timer == nil && now.Sub(t.start) >= l.window) {
		if t == nil && len(l.senders) >= rejectSendersKept {
			l.prune(now)
		}
		t = &rejectTally{start: now}
		l.senders[rej.Sender] = t
	}
	if t.reported < l.burst {
		t.reported++
		return true
	}
	if t.held == 0 {
		t.firstHeld = now
	}
	t.held++
	t.lastHeld, t.last = now, rej
	if t.timer == nil && !l.closed {
		sender := rej.Sender
		t.timer = time.AfterFunc(max(t.start.Add(l.window).Sub(now), 0), func() { l.flush(sender) })
	}
	return false
}

// flush sends the sender's aggregate and starts a new window in which it is still held to
// aggregates: a flood that goes on yields one report per window.
func (l *rejectLimiter) flush(sender string) {
	l.mu.Lock()
	t := l.senders[sender]
	if t == nil || l.closed {
		l.mu.Unlock()
		return
	}
	t.timer = nil
	n, span, last := t.held, t.lastHeld.Sub(t.firstHeld), t.last
	t.held, t.start = 0, time.Now()
	l.mu.Unlock()
	if n > 0 {
		l.report(last, aggregateText(n, last.who(), span))
	}
}

// prune drops the tallies of senders with nothing due whose window is over. Called locked.
func (l *rejectLimiter) prune(now time.Time) {
	for k, t := range l.senders {
		if t.timer == nil && now.Sub(t.start) >= l.window {
			delete(l.senders, k)
		}
	}
}

// close stops the timers and sends the aggregates that were due, at once: the room is
// closing, and what it refused is still told.
func (l *rejectLimiter) close() {
	type due struct {
		last Rejection
		text string
	}
	var pending []due
	l.mu.Lock()
	l.closed = true
	for _, t := range l.senders {
		if t.timer != nil {
			t.timer.Stop()
			t.timer = nil
		}
		if t.held > 0 {
			pending = append(pending, due{t.last, aggregateText(t.held, t.last.who(), t.lastHeld.Sub(t.firstHeld))})
			t.held = 0
		}
	}
	l.mu.Unlock()
	for _, d := range pending {
		l.report(d.last, d.text)
	}
}

// aggregateText says how many messages of who were refused without a report of their own,
// over how long (whole seconds, at least 1).
func aggregateText(n int, who string, span time.Duration) string {
	secs := max(int(math.Round(span.Seconds())), 1)
	word := "messages"
	if n == 1 {
		word = "message"
	}
	return fmt.Sprintf("refused %s more %s from %s in %d s", thousands(n), word, who, secs)
}

// thousands writes n with commas between groups of three digits (9,950).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
