package monitor

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/spec"
)

// BenchmarkIdlePoll50 is one poll of a real store holding 50 running exams of 200 events each
// when nothing changed: what the monitor costs the store twice a second.
func BenchmarkIdlePoll50(b *testing.B) {
	ctx := context.Background()
	st, err := sessions.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	exam := &spec.Exam{ID: "e1", Title: "Exam"}
	for i := range 50 {
		s, err := st.Create(ctx, sessions.Meta{ID: fmt.Sprintf("exam-%03d", i), Exam: exam})
		if err != nil {
			b.Fatal(err)
		}
		j, err := st.Journal(ctx, s.ID)
		if err != nil {
			b.Fatal(err)
		}
		for range 200 {
			ev, err := runtime.NewEvent(s.ID, j.NextSeq(), time.Now(), &runtime.TranscriptSegmentPayload{Speaker: "candidate", Text: "an answer", IsFinal: true})
			if err != nil {
				b.Fatal(err)
			}
			if err := j.Publish(ev); err != nil {
				b.Fatal(err)
			}
		}
		if err := j.Flush(ctx); err != nil {
			b.Fatal(err)
		}
	}
	f := &follower{src: st, since: StartOfDay(time.Now()), seen: map[string]int64{}, meta: map[string]metaKey{}}
	if u := f.poll(ctx); len(u.Events) != 50*200 {
		b.Fatalf("first poll read %d events", len(u.Events))
	}
	b.ResetTimer()
	for b.Loop() {
		if u := f.poll(ctx); len(u.Events) != 0 || u.Err != nil {
			b.Fatalf("idle poll: %d events, %v", len(u.Events), u.Err)
		}
	}
}
