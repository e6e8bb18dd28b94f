package tui

import (
	"testing"

	"github.com/examtui/examtui/runtime"
)

// BenchmarkUpdateEvent measures one event through Update into a console that already holds a
// 2-hour session, at 120×40: decoding, every pane's apply and the relayout after the batch.
func BenchmarkUpdateEvent(b *testing.B) {
	m := largeModel(b, 120, 40)
	var evs []runtime.Event
	if err := genSession(sessionSize{200, 40, 6, 4}, func(ev runtime.Event) { evs = append(evs, ev) }); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		m.Update(EventsMsg{evs[i%len(evs)]})
	}
}
