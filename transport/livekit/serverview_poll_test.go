package livekit

import (
	"testing"
	"time"
)

// A waiting bot asks at once, then every 150 ms, and after a minute of waiting every second;
// a new wait starts fast again.
func TestServerPollSchedule(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	v := &serverView{}
	steps := []struct {
		name  string
		now   time.Time
		asked bool // the bot asked at now (before the call)
		want  time.Duration
	}{
		{"first call asks at once", t0, false, 0},
		{"just asked", t0, true, serverPollEvery},
		{"half way", t0.Add(100 * time.Millisecond), false, 50 * time.Millisecond},
		{"overdue", t0.Add(time.Second), false, 0},
		{"after a minute, just asked", t0.Add(61 * time.Second), true, serverPollSlow},
		{"after a minute, 300 ms later", t0.Add(61*time.Second + 300*time.Millisecond), false, 700 * time.Millisecond},
	}
	for _, s := range steps {
		if s.asked {
			v.lastAsked = s.now
		}
		if got := v.nextAsk(s.now); got != s.want {
			t.Errorf("%s: nextAsk = %v, want %v", s.name, got, s.want)
		}
	}
	v.stopWaiting()
	later := t0.Add(2 * time.Minute)
	v.lastAsked = later
	if got := v.nextAsk(later); got != serverPollEvery {
		t.Errorf("a new wait: nextAsk = %v, want %v", got, serverPollEvery)
	}
}
