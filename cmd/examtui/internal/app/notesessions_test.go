package app_test

import (
	"context"
	"slices"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/runtime"
)

// TestNoteSessions: watch's events pass unchanged and in order, and each session they name is
// noted once (one access log entry per exam watched, not one per event).
func TestNoteSessions(t *testing.T) {
	in := make(chan runtime.Event, 8)
	for _, ev := range []runtime.Event{{SessionID: "a", Seq: 1}, {SessionID: "a", Seq: 2}, {Seq: 0}, {SessionID: "b", Seq: 1}, {SessionID: "a", Seq: 3}} {
		in <- ev
	}
	close(in)
	var noted []string
	var seqs []string
	for ev := range app.NoteSessions(context.Background(), in, func(id string) { noted = append(noted, id) }) {
		seqs = append(seqs, ev.SessionID+string(rune('0'+ev.Seq)))
	}
	if !slices.Equal(noted, []string{"a", "b"}) {
		t.Errorf("noted %v, want a then b, once each", noted)
	}
	if !slices.Equal(seqs, []string{"a1", "a2", "0", "b1", "a3"}) {
		t.Errorf("events %v, want them all in order", seqs)
	}
}
