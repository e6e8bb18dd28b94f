package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// BenchmarkCrowdedSQLite starts EXAMTUI_BENCH_EXAMS (default 200) real `examtui run --headless`
// processes at once on one SQLite data directory; each types the rehearsal's answers half a
// second apart, so they all hold the store together. Every exam must start, complete and exit
// 0, and the store must hold exactly that many completed sessions, none left created. Each
// process has 3 minutes. Run with -benchtime=1x:
//
//	go test ./cmd/examtui -run '^$' -bench BenchmarkCrowdedSQLite -benchtime=1x
func BenchmarkCrowdedSQLite(b *testing.B) {
	n := 200
	if v := os.Getenv("EXAMTUI_BENCH_EXAMS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("EXAMTUI_BENCH_EXAMS=%q: want a positive count", v)
		}
	}
	bin := examtuiBinaryTB(b)
	script := apptest.Rehearsal(b)
	var lines []string
	for _, turn := range script.Turns {
		if turn.Say != nil {
			lines = append(lines, *turn.Say)
		}
	}
	for range b.N {
		dataDir := filepath.Join(b.TempDir(), "data")
		start := time.Now()
		failures := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				failures[i] = runPaced(bin, dataDir, lines)
			}()
		}
		wg.Wait()
		wall := time.Since(start)
		failed := 0
		for i, f := range failures {
			if f != "" {
				failed++
				if failed <= 5 {
					b.Errorf("exam %d: %s", i, f)
				}
			}
		}

		st, err := sessions.Open(context.Background(), dataDir)
		if err != nil {
			b.Fatal(err)
		}
		list, err := st.List(context.Background())
		_ = st.Close()
		if err != nil {
			b.Fatal(err)
		}
		states := map[runtime.ExamState]int{}
		for _, s := range list {
			states[s.State]++
		}
		b.ReportMetric(float64(n-failed), "exams-ok")
		b.ReportMetric(float64(states[runtime.StateCompleted]), "completed")
		b.ReportMetric(float64(states[runtime.StateCreated]), "left-created")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.Logf("%d exams on one SQLite data directory: %d exited 0, %d sessions stored %v, in %s (load %s)",
			n, n-failed, len(list), states, wall.Round(100*time.Millisecond), loadAvg())
		if failed > 0 || len(list) != n || states[runtime.StateCompleted] != n {
			b.Fatalf("%d of %d exams failed; %d sessions stored: %v", failed, n, len(list), states)
		}
	}
}

// runPaced runs one headless exam in dataDir, writing lines to its stdin half a second apart,
// and returns "" or what went wrong.
func runPaced(bin, dataDir string, lines []string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--data-dir", dataDir, "run", "demo", "--headless", "--examiner", "offline")
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL=", "OPENAI_API_KEY=")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err.Error()
	}
	if err := cmd.Start(); err != nil {
		return err.Error()
	}
	tick := time.NewTicker(500 * time.Millisecond) // pacing, so the exams overlap
	for _, l := range lines {
		<-tick.C
		if _, err := fmt.Fprintln(in, l); err != nil {
			break // the process ended early: its exit status says why
		}
	}
	tick.Stop()
	_ = in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Sprintf("%v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return ""
}
