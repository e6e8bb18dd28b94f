package voicepath

import (
	"context"
	"sync"

	"github.com/examtui/examtui/audio"
)

// line is examiner speech waiting to be said: one spoken event, or several in a row that share
// a voice and speed, joined so the sentences of one reply (streamed as separate events) play
// back to back.
type line struct {
	text string
	opts audio.SpeakOptions
	seq  int64 // the last joined event's sequence number
	n    int   // events joined
	// timing is the turn this line is the first reply to (nil: not the first line of a reply).
	timing *Timing
}

// speechQueue is the examiner's speech queue: lines waiting, and the one being said with the
// means to cut it. Every method is safe from any goroutine and never blocks but take.
type speechQueue struct {
	mu      sync.Mutex
	lines   []line
	current *saying
	pushed  int64         // the highest seq of a line pushed so far
	notify  chan struct{} // a line was pushed
	change  chan struct{} // closed and replaced whenever the queue may have become idle
}

// saying is the line being said.
type saying struct {
	line
	cut   context.CancelFunc
	cause Cause // why it was cut; CauseNone while it plays on
}

func newSpeechQueue() *speechQueue {
	return &speechQueue{notify: make(chan struct{}, 1), change: make(chan struct{})}
}

// push queues a line.
func (q *speechQueue) push(l line) {
	q.mu.Lock()
	q.lines = append(q.lines, l)
	q.pushed = max(q.pushed, l.seq)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// take blocks until a line is queued (or ctx ends), makes it the one being said and returns
// it with its context, which interrupt cancels. Lines that follow with the same options are
// joined to it.
func (q *speechQueue) take(ctx context.Context) (line, context.Context, bool) {
	for {
		q.mu.Lock()
		if len(q.lines) > 0 {
			l := q.lines[0]
			l.n = max(l.n, 1)
			i := 1
			for ; i < len(q.lines) && q.lines[i].opts == l.opts; i++ {
				l.text += " " + q.lines[i].text
				l.seq = q.lines[i].seq
				l.n += max(q.lines[i].n, 1)
				if l.timing == nil {
					l.timing = q.lines[i].timing
				}
			}
			q.lines = append(q.lines[:0:0], q.lines[i:]...)
			lctx, cancel := context.WithCancel(ctx)
			q.current = &saying{line: l, cut: cancel}
			q.mu.Unlock()
			return l, lctx, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return line{}, nil, false
		case <-q.notify:
		}
	}
}

// cause is why the line being said was cut (CauseNone: it was not).
func (q *speechQueue) cause() Cause {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.current == nil {
		return CauseNone
	}
	return q.current.cause
}

// finish ends the line being said and reports whether the queue is now empty.
func (q *speechQueue) finish() (empty bool) {
	empty, _ = q.finishThrough()
	return empty
}

// finishThrough is finish that also returns, read with it, the highest seq pushed so far:
// with the queue empty, every line up to it is over.
func (q *speechQueue) finishThrough() (empty bool, through int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.current != nil {
		q.current.cut()
		q.current = nil
	}
	q.changed()
	return len(q.lines) == 0, q.pushed
}

// idleThrough reports, read together, whether the queue is idle and the highest seq pushed.
func (q *speechQueue) idleThrough() (bool, int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.current == nil && len(q.lines) == 0, q.pushed
}

// interrupt drops the lines queued before the event numbered before and cuts the line being
// said if it is one of them; it reports how many lines it dropped and whether it cut one. A
// cut already made keeps its first cause.
func (q *speechQueue) interrupt(c Cause, before int64) (dropped int, cut bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	kept := q.lines[:0]
	for _, l := range q.lines {
		if l.seq < before {
			dropped++
			continue
		}
		kept = append(kept, l)
	}
	q.lines = kept
	if cur := q.current; cur != nil && cur.seq < before {
		if cur.cause == CauseNone {
			cur.cause = c
		}
		cur.cut()
		cut = true
	}
	q.changed()
	return dropped, cut
}

// idle reports that no line is queued or being said.
func (q *speechQueue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.current == nil && len(q.lines) == 0
}

// waitChange returns a channel closed the next time the queue may have become idle.
func (q *speechQueue) waitChange() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.change
}

// changed wakes the waiters of waitChange; q.mu is held.
func (q *speechQueue) changed() {
	close(q.change)
	q.change = make(chan struct{})
}
