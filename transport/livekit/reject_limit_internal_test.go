package livekit

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestRejectLimiterAggregates runs a 17 s flood of 10,000 refused messages from one sender,
// and a few from another, on the bubble's clock: each sender gets rejectBurst reports of its
// own, then one aggregate per window for the rest; after a quiet window a sender is reported
// one by one again; closing sends what was still held.
func TestRejectLimiterAggregates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu   sync.Mutex
			aggr []string
		)
		l := newRejectLimiter(rejectBurst, rejectWindow, func(_ Rejection, text string) {
			mu.Lock()
			aggr = append(aggr, text)
			mu.Unlock()
		})
		flood := Rejection{Topic: TopicExaminerCommands, Sender: "flooder", Err: ErrUnknownSender}
		other := Rejection{Topic: TopicCandidateInput, Sender: "", Err: ErrUnknownSender}
		verbatim := map[string]int{}
		allow := func(r Rejection) {
			if l.allow(r, time.Now()) {
				verbatim[r.Sender]++
			}
		}
		// 1.7 ms apart: no refusal falls on a window's end, where the bubble would wake the
		// flush and the sender at the same instant in either order.
		const total, span = 10000, 17 * time.Second
		for i := range total {
			allow(flood)
			if i%1000 == 0 {
				allow(other)
			}
			time.Sleep(span / total)
		}
		time.Sleep(rejectWindow) // the last window ends
		synctest.Wait()
		mu.Lock()
		got := slices.Clone(aggr)
		mu.Unlock()
		want := []string{
			"refused 3 more messages from an unidentified participant in 3 s",
			"refused 4 more messages from an unidentified participant in 5 s",
			"refused 4,117 more messages from flooder in 7 s",
			"refused 5,880 more messages from flooder in 10 s",
		}
		slices.Sort(got) // the two senders' timers fire in either order
		if !slices.Equal(got, want) || verbatim["flooder"] != rejectBurst || verbatim[""] != rejectBurst {
			t.Fatalf("aggregates %q, verbatim %v; want %q and %d each", got, verbatim, want, rejectBurst)
		}

		time.Sleep(rejectWindow) // a quiet window: the flooder starts afresh
		allow(flood)
		if verbatim["flooder"] != rejectBurst+1 {
			t.Errorf("after a quiet window the flooder's next refusal was not reported on its own")
		}
		for range rejectBurst + 1 { // two more of its own, two held
			allow(flood)
		}
		l.close()
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if last := aggr[len(aggr)-1]; last != "refused 2 more messages from flooder in 1 s" {
			t.Errorf("closing sent %q, want the 2 held refusals", last)
		}
	})
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9950: "9,950", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
