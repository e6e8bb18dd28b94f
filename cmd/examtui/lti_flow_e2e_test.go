package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	candsrv "github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/cmd/examtui/internal/candidate/web/webtest"
	"github.com/examtui/examtui/cmd/examtui/internal/gradepass"
	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/cmd/examtui/internal/lti/ltitest"
	"github.com/examtui/examtui/internal/browsertest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/openaitest"
	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/marking"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/sessions"
	"github.com/examtui/examtui/transport/livekit"
)

// progress is how far the session of candidate id cid has come in the store: its id, the
// answers the exam took, and whether the examiner has spoken since the last one.
func progress(t *testing.T, st *sessions.Store, cid string) (id string, turns int, spokeSince bool) {
	t.Helper()
	ctx := context.Background()
	list, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.CandidateID == cid {
			id = s.ID
		}
	}
	if id == "" {
		return "", 0, false
	}
	for ev, err := range st.Events(ctx, id, 1) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Event {
		case runtime.EventObservation:
			turns, spokeSince = turns+1, false
		case runtime.EventSpoken:
			spokeSince = true
		}
	}
	return id, turns, spokeSince
}

// instructorPage launches the stand-in's instructor on message in a tab of b and returns the
// examiner's page as the browser renders it.
func instructorPage(t *testing.T, b *browsertest.Browser, plat *ltitest.Platform, message string) string {
	t.Helper()
	p := b.Open(t, plat.LoginInitiation(ltitest.Instructor, message))
	p.WaitTrue(`document.readyState === "complete" && document.querySelector("#summary")`, waitLTIExam, "the instructor's page")
	defer p.Close()
	return strings.Join(strings.Fields(p.Text("main")), " ")
}

// TestLTIFlowByVoice is the whole path of an exam from a course to its gradebook, through the
// real binary: the stand-in platform initiates the login, the learner's launch lands on the
// join page in Chromium, the exam is taken by voice (espeak-ng answers on the fake microphone,
// a real LiveKit server, a worker running the exam with a recogniser on the OpenAI-compatible
// wire), on PostgreSQL two markers mark as their own login roles and the moderator locks, and
// `examtui marks publish` leaves the platform holding exactly one score for the learner: the
// locked total, FullyGraded. A second learner who took the exam (typed) and whose marking is
// open gets no FullyGraded score (Pending, as the product defines); a second publish sends
// nothing new.
func TestLTIFlowByVoice(t *testing.T) {
	ctx := context.Background()
	lk := lktest.Start(t)
	plat := ltitest.Start(t)
	db := pgtest.NewDB(t)
	urls := map[string]string{"owner": db}
	for _, who := range []string{"alice", "bob", "carol"} {
		urls[who] = pgtest.LoginRole(t, db, who)
	}
	s := startLTIServe(t, lk, plat, "127.0.0.1", "--store", db)
	said := apptest.Rehearsal(t).Said()
	answers := webtest.NewAnswers(t, said)
	stt := openaitest.New(t, openaitest.WithAPIKey("sk-test"), openaitest.WithTranscriber(answers.Transcribe))
	w := s.startWorker(db, []string{"OPENAI_BASE_URL=" + stt.URL(), "OPENAI_API_KEY=sk-test"}, "--stt", "openai")
	plat.AddLink(ltitest.Link{ID: "rl-oral", Title: "Hotel breakfast oral", Custom: map[string]string{"exam": "hotel-breakfast"}}, 9)
	alan := ltitest.User{Sub: "learner-8", Name: "Alan Turing", Email: "alan@example.edu", Roles: []string{lti.RoleLearner}}
	plat.AddUser(alan)
	st, err := sessions.OpenURL(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// Ada: the platform's login initiation in Chromium, the launch, the join page, by voice.
	mic := filepath.Join(t.TempDir(), "mic.wav")
	webtest.Silence(t, mic)
	b := browsertest.Start(t, browsertest.WithFakeAudio(mic))
	p := b.Open(t, plat.LoginInitiation(ltitest.Learner, "link:rl-oral"))
	p.WaitTrue(`location.pathname.startsWith("/join/") && document.readyState === "complete" && document.querySelector("#notice-ack")`,
		waitLTIExam, "the launch to land on the join page")
	p.Click("#notice-ack")
	p.WaitTrue(`!document.querySelector("#join").disabled`, waitLTIExam, "the Join button to be enabled (microphone open)")
	p.Click("#join")
	p.WaitText("#state", "in progress", waitLTIExam)
	ada := candsrv.CandidateID(plat.Issuer, ltitest.Learner.Sub)
	// Alan launches: his exam is dispatched, he has not joined yet.
	resp, _ := s.launch(newBrowserClient(), alan, "link:rl-oral")
	code, ok := strings.CutPrefix(resp.Request.URL.Path, "/join/")
	if !ok {
		t.Fatalf("Alan's launch ended at %s", resp.Request.URL)
	}
	// The instructor's page, in Chromium: who waits, who is live.
	instructor := instructorPage(t, b, plat, "link:rl-oral")
	for _, want := range []string{"1 waiting to start · 1 live · 0 in the marking queue", "Ada Lovelace", "live (in_progress)", "Alan Turing", "waiting to start"} {
		if !strings.Contains(instructor, want) {
			t.Fatalf("the instructor's page during Ada's exam does not show %q:\n%s", want, instructor)
		}
	}
	// The worker hears the page's microphone before the first answer is said.
	testutil.Eventually(t, waitLTIExam, func() bool { return w.count("candidate audio subscribed") >= 1 }, "the worker to subscribe to the page's microphone")
	for i := range said {
		testutil.Eventually(t, waitLTIExam, func() bool { _, n, spoke := progress(t, st, ada); return n == i && spoke },
			"the examiner's line before answer %d", i+1)
		answers.Say(t, p, mic, i)
		testutil.Eventually(t, waitLTIExam, func() bool { _, n, _ := progress(t, st, ada); return n == i+1 },
			"answer %d to be taken; the recogniser heard:\n  %s", i+1, answers)
	}
	p.WaitText("#ended", "The exam has ended", waitLTIExam)
	adaSession, _, _ := progress(t, st, ada)
	ended := func(id string) bool {
		sess, err := st.Get(ctx, id)
		return err == nil && !sess.EndedAt.IsZero()
	}
	// The page shows the end when the exam completes and stays for the examiner's closing
	// words; the learner closes it, and the session ends.
	p.Close()
	testutil.Eventually(t, waitLTIExam, func() bool { return ended(adaSession) }, "Ada's session to end in the store")

	// Alan, who launched while Ada's exam ran, takes the exam by typing; nobody marks it.
	joinResp, err := newBrowserClient().Post(s.base+"/api/join", "application/json", strings.NewReader(`{"code":"`+code+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var joined map[string]string
	if err := json.Unmarshal([]byte(readBody(t, joinResp)), &joined); err != nil || joined["token"] == "" {
		t.Fatalf("Alan's join: %v %v", joined, err)
	}
	dctx, cancel := context.WithTimeout(ctx, waitLTIExam)
	c, err := livekit.Dial(dctx, lk.URL, joined["token"])
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	alanIn := listenAs(t, joined["room"], c)
	if err := alanIn.takeExam(said, 2*waitLTIExam); err != nil {
		t.Fatal(err)
	}
	alanIn.close()
	testutil.Eventually(t, waitLTIExam, func() bool {
		id, _, _ := progress(t, st, candsrv.CandidateID(plat.Issuer, alan.Sub))
		return id != "" && ended(id)
	}, "Alan's session to end in the store")

	// Two markers mark Ada's exam, each as their own PostgreSQL login role; the moderator locks.
	as := func(who string, args ...string) string {
		t.Helper()
		out, errOut, err := runCmd(t, "", append([]string{"--store", urls[who]}, args...)...)
		if err != nil {
			t.Fatalf("%s: examtui %s: %v\n%s%s", who, strings.Join(args, " "), err, out, errOut)
		}
		return out
	}
	const exam = "hospitality-oral-b2"
	as("owner", "marks", "roster", "add", "--exam", exam, "--role", "marker", "alice")
	as("owner", "marks", "roster", "add", "--exam", exam, "--role", "marker", "bob")
	as("owner", "marks", "roster", "add", "--exam", exam, "--role", "moderator", "carol")
	for _, who := range []string{"alice", "bob"} {
		for _, c := range [][2]string{{"options", "analysis"}, {"clientele", "description"}, {"resources", "evaluation"}, {"communication", "none"}} {
			as(who, "marks", "set", adaSession, "--criterion", c[0], "--level", c[1], "--justification", "as heard")
		}
	}
	if out := as("carol", "marks", "lock", adaSession); !strings.Contains(out, "locked by carol") {
		t.Fatalf("lock: %s", out)
	}
	locked, err := marking.LockedResult(ctx, st, adaSession)
	if err != nil || locked.Total == nil {
		t.Fatalf("Ada's locked result: %+v %v", locked, err)
	}

	publish := func() string {
		t.Helper()
		cmd := exec.Command(s.bin, "marks", "publish", "--exam", exam, "--data-dir", s.dir, "--store", db)
		cmd.Env = s.env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("marks publish: %v\n%s", err, out)
		}
		return string(out)
	}
	out := publish()
	scores := plat.Scores()
	var adas, alans []ltitest.ScoreRecord
	for _, sc := range scores {
		switch sc.Score.UserID {
		case ltitest.Learner.Sub:
			adas = append(adas, sc)
		case alan.Sub:
			alans = append(alans, sc)
		}
	}
	if len(adas) != 1 || adas[0].Score.GradingProgress != lti.GradingFully || adas[0].Score.ScoreGiven == nil ||
		*adas[0].Score.ScoreGiven != float64(*locked.Total) || *adas[0].Score.ScoreMaximum != float64(locked.MaxTotal) {
		t.Fatalf("the platform holds for Ada %+v, want one FullyGraded score of %d/%d; publish said:\n%s", adas, *locked.Total, locked.MaxTotal, out)
	}
	for _, sc := range alans {
		if sc.Score.GradingProgress == lti.GradingFully || sc.Score.ScoreGiven != nil {
			t.Fatalf("Alan's open marking was posted as a score: %+v", sc)
		}
	}
	if len(alans) != 1 || alans[0].Score.GradingProgress != lti.GradingPending {
		t.Fatalf("Alan's scores %+v, want one Pending", alans)
	}
	// The instructor's page after the publish: Ada locked and sent, Alan in the marking queue.
	instructor = instructorPage(t, b, plat, "link:rl-oral")
	for _, want := range []string{"0 waiting to start · 0 live · 1 in the marking queue", "locked", "sent FullyGraded", "unmarked", "sent Pending"} {
		if !strings.Contains(instructor, want) {
			t.Fatalf("the instructor's page after the publish does not show %q:\n%s", want, instructor)
		}
	}
	// A link not tied to an exam: the page's picker offers the exams to tie it to.
	plat.AddLink(ltitest.Link{ID: "rl-blank", Title: "Oral (to choose)"}, 0)
	if picker := instructorPage(t, b, plat, "link:rl-blank"); !strings.Contains(picker, "This link has no exam yet") || !strings.Contains(picker, "(hotel-breakfast") ||
		!strings.Contains(picker, "Use this exam for this link") {
		t.Fatalf("the instructor's page of an unplaced link:\n%s", picker)
	}
	if again := publish(); len(plat.Scores()) != len(scores) || !strings.Contains(again, gradepass.Unchanged) {
		t.Fatalf("a second publish sent %d more score(s):\n%s", len(plat.Scores())-len(scores), again)
	}
}
