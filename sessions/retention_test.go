package sessions

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPurgeByAge: sessions of several ages (backdated) against a policy — recordings 30 days,
// events a year, marks six years, join codes 30 days after expiry, logs 90 days — lose exactly
// what the policy says; a dry run says the same and removes nothing; the purge is logged and in
// the access log; a second purge finds nothing.
func TestPurgeByAge(t *testing.T) {
	forEachEngine(t, func(t *testing.T, eng testEngine) {
		ctx := context.Background()
		var logBuf bytes.Buffer
		st, dataDir := eng.openRecords(t, WithLogger(slog.New(slog.NewTextHandler(&logBuf, nil))))
		now := fixtureStart
		day := 24 * time.Hour
		fresh := seedPerson(t, st, dataDir, "age-10d", "Ada Fresh", now.Add(-10*day))
		recent := seedPerson(t, st, dataDir, "age-60d", "Ben Recent", now.Add(-60*day))
		old := seedPerson(t, st, dataDir, "age-2y", "Cy Old", now.Add(-2*365*day))
		ancient := seedPerson(t, st, dataDir, "age-7y", "Di Ancient", now.Add(-7*365*day))
		logPath := filepath.Join(dataDir, "examtui.log")
		req := PurgeRequest{Now: now, DataDir: dataDir, Logs: []string{logPath},
			Policy: RetentionPolicy{Recordings: 30 * day, Events: 365 * day, Marks: 6 * 365 * day, JoinCodes: 30 * day, Logs: 90 * day}}
		want := Purged{Sessions: []string{ancient.id}, Events: []string{old.id}, Recordings: []string{old.id, recent.id}, JoinCodes: 3, LogLines: 4}

		dry := req
		dry.DryRun = true
		got, err := st.Purge(ctx, dry)
		if err != nil {
			t.Fatal(err)
		}
		want.DryRun = true
		comparePurged(t, "dry run", got, want)
		for _, p := range []person{fresh, recent, old, ancient} {
			if _, err := st.Get(ctx, p.id); err != nil {
				t.Fatalf("dry run removed %s: %v", p.id, err)
			}
			if _, err := os.Stat(p.recordings[0]); err != nil {
				t.Fatalf("dry run removed %s's recording: %v", p.id, err)
			}
		}

		got, err = st.Purge(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		want.DryRun = false
		comparePurged(t, "purge", got, want)
		// The ancient session is gone whole; the old one keeps its row and marks, not its
		// events or audio; the recent one keeps its events, not its audio; the fresh one all.
		if left := traces(t, st, dataDir, ancient.id, ancient.name, ancient.phrase); len(left) > 0 {
			t.Errorf("the session past its marks' age left traces:\n  %s", strings.Join(left, "\n  "))
		}
		for _, c := range []struct {
			p                 person
			events, recording bool
		}{{fresh, true, true}, {recent, true, false}, {old, false, false}} {
			evs, err := st.LoadEvents(ctx, c.p.id)
			if err != nil {
				t.Fatal(err)
			}
			if (len(evs) > 0) != c.events {
				t.Errorf("%s: %d events, want kept=%v", c.p.id, len(evs), c.events)
			}
			_, err = os.Stat(c.p.recordings[0])
			if (err == nil) != c.recording {
				t.Errorf("%s: recording stat %v, want kept=%v", c.p.id, err, c.recording)
			}
			if ms, err := st.FinalMarks(ctx, c.p.id); err != nil || len(ms) != 1 {
				t.Errorf("%s: final marks %v, %v: the gradebook's marks must stay", c.p.id, ms, err)
			}
		}
		data, _ := os.ReadFile(logPath)
		if strings.Contains(string(data), old.id) || !strings.Contains(string(data), recent.id) || !strings.Contains(string(data), fresh.id) {
			t.Errorf("log after purge:\n%s", data)
		}
		if !strings.Contains(logBuf.String(), "purged by the retention policy") {
			t.Errorf("the purge was not logged:\n%s", logBuf.String())
		}
		for _, id := range []string{old.id, recent.id, ancient.id} {
			log, err := st.AccessLog(ctx, AccessFilter{SessionID: id})
			if err != nil || len(log) == 0 || !strings.HasPrefix(log[len(log)-1].Detail, "retention") && !strings.Contains(log[len(log)-1].Detail, "retention") {
				t.Errorf("access log of %s = %+v, %v", id, log, err)
			}
		}
		if _, err := st.VerifyAccessLog(ctx); err != nil {
			t.Fatal(err)
		}
		again, err := st.Purge(ctx, req)
		if err != nil || !again.Empty() {
			t.Fatalf("second purge = %+v, %v, want nothing", again, err)
		}
	})
}

func comparePurged(t *testing.T, what string, got, want Purged) {
	t.Helper()
	for _, l := range [][]string{got.Sessions, got.Events, got.Recordings, want.Recordings} {
		slices.Sort(l)
	}
	if !slices.Equal(got.Sessions, want.Sessions) || !slices.Equal(got.Events, want.Events) || !slices.Equal(got.Recordings, want.Recordings) ||
		got.JoinCodes != want.JoinCodes || got.LogLines != want.LogLines || got.DryRun != want.DryRun {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
}

// TestPurgeEmptyPolicy: a policy that keeps everything removes nothing.
func TestPurgeEmptyPolicy(t *testing.T) {
	st := testEngines[0].open(t)
	seedPerson(t, st, st.Dir(), "keep-all", "Eve Kept", fixtureStart.Add(-100*365*24*time.Hour))
	got, err := st.Purge(context.Background(), PurgeRequest{Now: fixtureStart, DataDir: st.Dir()})
	if err != nil || !got.Empty() {
		t.Fatalf("purge with no policy = %+v, %v", got, err)
	}
}
