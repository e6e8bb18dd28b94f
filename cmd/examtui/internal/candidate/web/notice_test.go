package web_test

import (
	"context"
	"testing"

	"github.com/examtui/examtui/internal/browsertest"
	"github.com/examtui/examtui/sessions"
)

// TestPageRecordingNotice: the page shows the recording notice first and opens no microphone
// until the candidate acknowledges it; joining then records the acknowledgement on the join
// code (which the room exam copies onto its session).
func TestPageRecordingNotice(t *testing.T) {
	r := newRoom(t)
	p := r.browser.Open(t, r.site.link(r.site.code(t, "cand-notice")))
	p.WaitText("#notice-text", sessions.DefaultNotice[:40], waitExam)
	if p.Visible("#mic-panel") || !browsertest.Eval[bool](p, `document.querySelector("#join").disabled`) {
		t.Fatal("the microphone check or the Join button is offered before the notice was acknowledged")
	}
	if n := browsertest.Eval[int](p, `document.querySelectorAll("#mic option").length`); n != 0 {
		t.Fatalf("the page listed %d microphones before the notice was acknowledged (it opened one)", n)
	}
	if _, ok, err := r.site.st.RoomNoticeAck(context.Background(), r.lk.Room, "cand-notice"); err != nil || ok {
		t.Fatalf("acknowledgement before the candidate gave it: %v %v", ok, err)
	}
	acknowledge(p)
	if p.Visible("#notice") {
		t.Error("the notice stays after it was acknowledged")
	}
	p.WaitTrue(`!document.querySelector("#join").disabled`, waitExam, "the Join button once the microphone is open")
	p.Click("#join")
	p.WaitText("#progress", "1 of 4", waitExam)
	if _, ok, err := r.site.st.RoomNoticeAck(context.Background(), r.lk.Room, "cand-notice"); err != nil || !ok {
		t.Fatalf("the acknowledgement was not recorded with the join: %v %v", ok, err)
	}
}
