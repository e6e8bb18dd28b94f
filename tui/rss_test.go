package tui

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/examtui/examtui/runtime"
)

// rssChildEnv makes the test binary act as the measured console process instead of running
// the tests.
const rssChildEnv = "EXAMTUI_TUI_RSS_CHILD"

// rssBudget is the ceiling for the process holding a 2-hour session.
const rssBudget = 150 << 20

func TestMain(m *testing.M) {
	if os.Getenv(rssChildEnv) != "" {
		if err := rssChild(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "rss child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLargeSessionProcessRSS runs a console process (this test binary, re-executed) that
// receives a 2-hour session through the bridge of a real Bubble Tea program drawing frames,
// and reads the peak resident set size the kernel reports for it (VmHWM). A heap figure would
// miss the Go runtime's own overhead, the program's renderer and fragmentation.
func TestLargeSessionProcessRSS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), rssChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	vals := map[string]int64{}
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok && strings.HasPrefix(k, "rss_") {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("child line %q: %v", l, err)
			}
			vals[k] = n
		}
	}
	hwm, ok := vals["rss_hwm_kb"]
	if !ok || vals["rss_turns"] < largeSegments || vals["rss_evidence"] != largeEvidence {
		t.Fatalf("child reported %v:\n%s", vals, out)
	}
	t.Logf("console process with a 2-hour session (%d transcript turns, %d evidence, %d writes to the terminal): peak RSS %.1f MiB, RSS at end %.1f MiB",
		vals["rss_turns"], vals["rss_evidence"], vals["rss_writes"], float64(hwm)/1024, float64(vals["rss_now_kb"])/1024)
	if hwm<<10 > rssBudget {
		t.Errorf("peak RSS %d KiB over the %d MiB budget", hwm, rssBudget>>20)
	}
}

// rssChild is the measured process: a console program (true colour, 200×60) fed a 2-hour
// session through the bridge, quitting once the stream ended; it prints its figures.
func rssChild(w io.Writer) error {
	m, err := New(hotelInfo, noBackend{}, WithDarkBackground(true), WithEventClock(), WithTickInterval(0))
	if err != nil {
		return err
	}
	term := &countingWriter{}
	p := tea.NewProgram(&quitOnEnd{Model: m}, tea.WithInput(nil), tea.WithOutput(term), tea.WithWindowSize(200, 60),
		tea.WithColorProfile(colorprofile.TrueColor), tea.WithoutSignalHandler())
	events := make(chan runtime.Event, 1024)
	done := make(chan struct{})
	bridged := make(chan struct{})
	go func() {
		defer close(bridged)
		m.Bridge(done, events, p.Send)
	}()
	ran := make(chan error, 1)
	go func() {
		_, err := p.Run()
		ran <- err
	}()
	genErr := genSession(twoHours, func(ev runtime.Event) { events <- ev })
	close(events)
	runErr := <-ran
	close(done)
	<-bridged
	if genErr != nil || runErr != nil {
		return fmt.Errorf("generate: %v; run: %v", genErr, runErr)
	}
	hwm, err := procStatusKB("VmHWM")
	if err != nil {
		return err
	}
	now, err := procStatusKB("VmRSS")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "rss_hwm_kb=%d\nrss_now_kb=%d\nrss_turns=%d\nrss_evidence=%d\nrss_writes=%d\n",
		hwm, now, len(transcriptOf(m).turns), evidenceOf(m).total, term.writes)
	return err
}

// quitOnEnd is the console as a host embeds it, quitting once the stream has ended.
type quitOnEnd struct{ *Model }

func (q *quitOnEnd) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := q.Model.Update(msg)
	if _, ok := msg.(StreamEndedMsg); ok {
		return q, tea.Sequence(cmd, tea.Quit)
	}
	return q, cmd
}

// countingWriter discards what the program writes to the terminal, counting the writes.
type countingWriter struct{ writes int }

func (w *countingWriter) Write(b []byte) (int, error) { w.writes++; return len(b), nil }

func procStatusKB(field string) (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("%s not in /proc/self/status", field)
}
