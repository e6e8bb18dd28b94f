package tui

import "testing"

// BenchmarkReplayStep measures what one step of a replay costs the console: one event
// through Update and a full frame with the replay status line.
func BenchmarkReplayStep(b *testing.B) {
	events := hotelSession(b)
	r := &fakeReplayer{speed: 4}
	m, err := New(replayInfo, nil, WithReplay(r), WithReplayTotal(int64(len(events))), WithNoColor(true),
		WithDarkBackground(true), WithTickInterval(0))
	if err != nil {
		b.Fatal(err)
	}
	m.Update(windowSize(120, 40))
	m.Apply(events...)
	last := events[len(events)-1]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ev := last
		ev.Seq = last.Seq + int64(i) + 1
		m.Update(EventsMsg{ev})
		_ = m.Render()
	}
}
