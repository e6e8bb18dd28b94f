package runtime_test

import (
	"errors"
	"testing"

	"github.com/examtui/examtui/runtime"
)

// TestNoticeAndReportSystemError: a notice is said to the candidate without moving the exam;
// a reported failure is a system_error at the current node; both refuse a closed controller.
func TestNoticeAndReportSystemError(t *testing.T) {
	h := newHarness(t, compileTestExam(t, "basic.yaml", nil), newOffline(t))
	h.start()
	before := h.c.Snapshot()
	if err := h.c.Notice("The examiner is back."); err != nil {
		t.Fatal(err)
	}
	if err := h.c.ReportSystemError("worker_job_failed", "provider blew up"); err != nil {
		t.Fatal(err)
	}
	after := h.c.Snapshot()
	if after.State != before.State || after.NodeID != before.NodeID || after.Turn != before.Turn || after.LastQuestion != before.LastQuestion {
		t.Errorf("snapshot moved: %+v → %+v", before, after)
	}
	spoken := payloads[*runtime.SpokenPayload](h)
	if last := spoken[len(spoken)-1]; last.Text != "The examiner is back." || last.Source != runtime.SpokenNotice || last.NodeID != before.NodeID {
		t.Errorf("notice = %+v", last)
	}
	errs := payloads[*runtime.SystemErrorPayload](h)
	if len(errs) != 1 || errs[0].Code != runtime.CodeWorkerJobFailed || errs[0].NodeID != before.NodeID {
		t.Errorf("system errors = %+v", errs)
	}
	h.checkSeq()
	if err := h.c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.c.Notice("x"); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("notice after close: %v", err)
	}
	if err := h.c.ReportSystemError("x", "y"); !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("report after close: %v", err)
	}
}
