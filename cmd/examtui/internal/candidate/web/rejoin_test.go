package web_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/candidate/web/webtest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
)

// spokenAfter returns the first line the exam spoke after its first n spoken events that
// contains want, and when it was stored.
func (e *exam) spokenAfter(t testing.TB, n int, want string) (string, time.Time, bool) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	seen := 0
	for _, ev := range e.events {
		if ev.Event != runtime.EventSpoken {
			continue
		}
		seen++
		if seen <= n {
			continue
		}
		p, err := ev.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if text := p.(*runtime.SpokenPayload).Text; strings.Contains(text, want) {
			return text, ev.Timestamp, true
		}
	}
	return "", time.Time{}, false
}

// TestPageImmediateRejoin (issue 31): the candidate's page dies (its renderer killed: no
// goodbye to the room) and the candidate rejoins at once from the same browser, before the
// server has noticed the old connection is gone. The examiner must ask the question again
// within 2 s of the new page connecting, and the new page must show it.
func TestPageImmediateRejoin(t *testing.T) {
	r := newRoom(t)
	link := r.site.link(r.site.code(t, "cand-rejoin"))
	p := r.join(t, link)
	p.WaitText("#progress", "1 of 4", waitExam)
	typeAnswer(t, p, r.answers.Said[0])
	p.WaitText("#progress", "2 of 4", waitExam)
	r.exam.quiet(t, r.exam.count(runtime.EventSpoken)-1)
	lines := r.exam.spokenTexts(t)
	question := lines[len(lines)-1]

	p.Crash()
	q := r.join(t, link)
	q.WaitText("#connection", "Connected.", waitExam)
	connected := time.Now()
	var again string
	if !testutil.Poll(2*time.Second, func() bool {
		text, _, ok := r.exam.spokenAfter(t, len(lines), question)
		again = text
		return ok
	}) {
		t.Fatalf("the examiner did not ask %q again within 2 s of the page rejoining (exam states: %s)", question, strings.Join(r.exam.stateEvents(t), ", "))
	}
	t.Logf("asked again %s after the page connected: %q", time.Since(connected).Round(10*time.Millisecond), again)
	q.WaitTrue(`[...document.querySelectorAll("#captions p")].some((e) => e.innerText.trim() === `+jsString(again)+`)`, waitExam, "the new page to show the question asked again")
}

// TestPageCaptureRestartDuringExaminerLine (issue 31): the page captures again (a microphone
// switch; every rejoin does the same) while the examiner is speaking, three times. The echo
// canceller's start-up burst is not speech: the examiner's line is not cut off as a barge-in.
// (In this headless set-up the restarted capture stays at about -100 dBFS, so this guards the
// page's restart path rather than reproducing the burst issue 31 measured.)
func TestPageCaptureRestartDuringExaminerLine(t *testing.T) {
	r := newRoom(t)
	p := r.join(t, r.site.link(r.site.code(t, "cand-restart")))
	p.WaitText("#progress", "1 of 4", waitExam)
	quietWAV := filepath.Join(t.TempDir(), "quiet.wav")
	webtest.Silence(t, quietWAV)
	for i := range 3 {
		n := r.exam.count(runtime.EventSpoken)
		if i > 0 {
			typeAnswer(t, p, r.answers.Said[i-1])
		}
		testutil.Eventually(t, waitExam, func() bool {
			return r.exam.count(runtime.EventSpoken) > n && r.exam.rb.Room.Voice().Queued() > time.Second
		}, "the examiner to be speaking (line %d)", i+1)
		webtest.Play(t, p, r.mic, quietWAV)
		if r.exam.rb.Room.Voice().Queued() == 0 {
			t.Fatalf("line %d: the examiner had finished before the capture restarted: nothing tested", i+1)
		}
		r.exam.quiet(t, n)
	}
	r.exam.mu.Lock()
	bargeIns := r.exam.bargeIns
	r.exam.mu.Unlock()
	if bargeIns > 0 {
		t.Errorf("%d barge-ins: restarting the page's capture cut the examiner off", bargeIns)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return "`" + strings.NewReplacer("\\", "\\\\", "`", "\\`", "${", "\\${").Replace(s) + "`"
}
