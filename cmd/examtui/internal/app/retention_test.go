package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
	"github.com/examtui/examtui/sessions"
)

// TestPurgeDailyAppliesAtStart: the long-running commands' purge runs once at start (not a day
// later), removes what the policy says, logs it, and stops with its context.
func TestPurgeDailyAppliesAtStart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, err := sessions.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	_, exam := runtimetest.Rehearsal(t)
	old, err := w.Create(ctx, sessions.Meta{Exam: exam, Candidate: "Old Candidate", Input: runtime.SourceTyped,
		StartedAt: time.Now().Add(-400 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // the process that ran it is gone
		t.Fatal(err)
	}
	st := apptest.OpenStore(t, dir)
	var logs testutil.SyncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{}, 1)
	go func() {
		defer func() { done <- struct{}{} }()
		app.PurgeDaily(pctx, dir, sessions.PurgeRequest{Policy: sessions.RetentionPolicy{Marks: 365 * 24 * time.Hour}, DataDir: dir}, time.Hour, log)
	}()
	testutil.Eventually(t, 10*time.Second, func() bool {
		_, err := st.Get(ctx, old.ID)
		return err != nil
	}, "the session past its age to be purged at start")
	cancel()
	testutil.Recv(t, done, 5*time.Second, "PurgeDaily to stop with its context")
	log2, err := st.AccessLog(ctx, sessions.AccessFilter{SessionID: old.ID})
	if err != nil || len(log2) != 1 || log2[0].Who != "retention" {
		t.Errorf("access log = %+v, %v", log2, err)
	}
	if !bytes.Contains([]byte(logs.String()), []byte("purged by the retention policy")) {
		t.Errorf("the purge was not logged:\n%s", logs.String())
	}
}
