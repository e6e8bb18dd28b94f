package candidate

import (
	"context"
	"fmt"
	"html/template"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
)

// The states of a course member's exam on the instructor's page.
const (
	courseWaiting  = "waiting to start" // launched: the exam is dispatched, the learner has not joined
	courseLive     = "live"
	courseFinished = "finished"
)

// courseRow is one learner's launch of a placed exam, with how their exam and its marking stand.
type courseRow struct {
	Name, Exam, Room string
	Launched         time.Time
	State            string // courseWaiting, courseLive (with the exam's state) or courseFinished
	Marking          string // the marking queue's reason, "locked", or "" before the exam ends
	Gradebook        string // what the gradebook has: a failure, or the grading sent
}

// coursePage is what the instructor's page shows.
type coursePage struct {
	Course, Synced        string
	Rows                  []courseRow
	Waiting, Live, ToMark int
	Exam                  string // the exam the launched link runs ("" when it names none and is untied)
	Unplaced              bool
	Picker                []lti.CatalogExam
	Token, TiePath        string // the picker's one-time token and where it posts
}

// courseView reads how the course's launched exams stand, as the control room and the marking
// queue know them: each learner's newest session (by the candidate id the launch gave it) is
// waiting (made, the learner not in yet), live, or finished with its place in the marking
// queue, locked, and what the gradebook was sent.
func courseView(ctx context.Context, st *sessions.Store, contextID string) (coursePage, error) {
	var page coursePage
	launches, err := st.LTILaunches(ctx, "", contextID)
	if err != nil {
		return page, err
	}
	list, err := st.List(ctx)
	if err != nil {
		return page, err
	}
	newest := map[string]*sessions.Session{} // candidate id → newest session
	for _, s := range list {
		if s.CandidateID == "" {
			continue
		}
		if prev := newest[s.CandidateID]; prev == nil || s.StartedAt.After(prev.StartedAt) {
			newest[s.CandidateID] = s
		}
	}
	queues := map[string]map[string]string{} // exam id → session → queue reason
	locked := map[string]map[string]bool{}
	for _, l := range launches {
		row := courseRow{Name: l.Name, Exam: l.Exam, Room: l.Room, Launched: l.Updated, State: courseWaiting}
		s := newest[l.CandidateID]
		switch {
		case s == nil || s.State == "" || s.State == runtime.StateCreated || s.State == runtime.StateScaffolding || s.State == runtime.StateReady:
			page.Waiting++
		case s.EndedAt.IsZero():
			row.State = courseLive + " (" + string(s.State) + ")"
			page.Live++
		default:
			row.State = courseFinished + " " + s.EndedAt.Local().Format("2006-01-02 15:04")
			if err := markingOf(ctx, st, s, queues, locked, &row); err != nil {
				return page, err
			}
			if row.Marking != "locked" && row.Marking != "" {
				page.ToMark++
			}
		}
		page.Rows = append(page.Rows, row)
	}
	return page, nil
}

// markingOf fills row's marking (the queue's reason, or locked) and gradebook columns for the
// finished session s; queues and locked cache the exam's queue and locks.
func markingOf(ctx context.Context, st *sessions.Store, s *sessions.Session, queues map[string]map[string]string,
	locked map[string]map[string]bool, row *courseRow) error {
	if _, ok := queues[s.ExamID]; !ok {
		q, err := marking.Queue(ctx, st, s.ExamID, "")
		if err != nil {
			return err
		}
		reasons := map[string]string{}
		for _, it := range q {
			reasons[it.SessionID] = it.Reason.String()
		}
		queues[s.ExamID] = reasons
		if locked[s.ExamID], err = st.LockedSessions(ctx, s.ExamID); err != nil {
			return err
		}
	}
	switch {
	case locked[s.ExamID][s.ID]:
		row.Marking = "locked"
	default:
		row.Marking = queues[s.ExamID][s.ID]
	}
	scores, err := st.LTIScores(ctx, s.ID)
	if err != nil {
		return err
	}
	for _, sc := range scores {
		switch sc.Status {
		case sessions.LTIScoreFailed:
			row.Gradebook = fmt.Sprintf("refused (%d attempts; next try %s)", sc.Attempts, sc.NextAttempt.Local().Format("15:04"))
		default:
			row.Gradebook = "sent " + sc.Grading
		}
	}
	return nil
}

var instructorPage = template.Must(template.New("instructor").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Oral exams — {{.Course}}</title></head>
<body><main><h1>Oral exams in {{.Course}}</h1>
{{if .Synced}}<p>{{.Synced}}</p>{{end}}
{{if .Unplaced}}<section id="picker"><h2>This link has no exam yet</h2>
{{if .Picker}}<p>Choose the exam learners start from this link (once chosen, it stays):</p>
<form method="post" action="{{.TiePath}}"><input type="hidden" name="token" value="{{.Token}}">
<fieldset><legend>Exam</legend>
{{range $i, $e := .Picker}}<p><label><input type="radio" name="exam" value="{{$e.ID}}"{{if eq $i 0}} checked{{end}}> {{$e.Title}} <small>({{$e.ID}}{{if $e.ScoreMaximum}}, {{$e.ScoreMaximum}} marks{{end}})</small></label></p>
{{end}}</fieldset><p><button type="submit">Use this exam for this link</button></p></form>
<p>This choice expires in 15 minutes and works once. A link's own <code>exam=NAME</code> custom parameter, when it has one, wins over it.</p>
{{else}}<p>This server has no exam to place: add exam specs to its --specs directory.</p>{{end}}</section>
{{else if .Exam}}<p id="link-exam">This link runs the exam <code>{{.Exam}}</code>.</p>{{end}}
<p id="summary">{{.Waiting}} waiting to start · {{.Live}} live · {{.ToMark}} in the marking queue</p>
{{if .Rows}}<table><thead><tr><th scope="col">Candidate</th><th scope="col">Exam</th><th scope="col">Room</th><th scope="col">Exam state</th><th scope="col">Marking</th><th scope="col">Gradebook</th><th scope="col">Last launch</th></tr></thead><tbody>
{{range .Rows}}<tr><td>{{.Name}}</td><td>{{.Exam}}</td><td>{{.Room}}</td><td>{{.State}}</td><td>{{.Marking}}</td><td>{{.Gradebook}}</td><td>{{.Launched.Format "2006-01-02 15:04"}}</td></tr>
{{end}}</tbody></table>{{else}}<p>No candidate has launched an exam from this course yet.</p>{{end}}
<p>Supervise live exams with <code>examtui monitor</code>; mark them with <code>examtui mark</code> (<code>examtui marks queue</code> lists what waits); send locked marks to the gradebook with <code>examtui marks publish</code>.</p>
</main></body></html>`))
