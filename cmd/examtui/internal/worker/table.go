package worker

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/textsafe"
	"github.com/examtui/examtui/transport/livekit/agent"
)

// LiveTable redraws the worker's jobs on out once a second until ctx ends (`examtui worker` on
// a terminal).
func LiveTable(ctx context.Context, out io.Writer, agentName string, w *agent.Worker, r *Runner) {
	draw := func() bool {
		fmt.Fprint(out, "\x1b[H\x1b[2J"+RenderTable(agentName, w.State(), w.Full(), r.Jobs(), time.Now()))
		return true
	}
	draw()
	app.Every(ctx, time.Second, draw)
}

// RenderTable is the worker's status line and one row per exam.
func RenderTable(agentName string, st agent.State, full bool, jobs []JobInfo, now time.Time) string {
	var b strings.Builder
	status := st.String()
	if full {
		status += ", full or draining"
	}
	fmt.Fprintf(&b, "examtui worker %s — %s — %d exam(s)\n\n", textsafe.Line(agentName), status, len(jobs))
	fmt.Fprintf(&b, "%-24s %-20s %-24s %-11s %8s\n", "ROOM", "CANDIDATE", "NODE", "STATE", "ELAPSED")
	for _, j := range jobs {
		cand := j.Candidate
		if j.Resumed {
			cand += " (resumed)"
		}
		fmt.Fprintf(&b, "%-24s %-20s %-24s %-11s %8s\n", cut(textsafe.Line(j.Room), 24), cut(textsafe.Line(cand), 20),
			cut(textsafe.Line(j.Node), 24), cut(j.State.String(), 11), now.Sub(j.Started).Truncate(time.Second))
	}
	if len(jobs) == 0 {
		b.WriteString("(waiting for dispatches)\n")
	}
	return b.String()
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
