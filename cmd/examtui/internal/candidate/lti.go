package candidate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	lkproto "github.com/livekit/protocol/livekit"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/sessions"
)

// Dispatcher starts an exam in a room unless one is already dispatched there (LiveKit agent
// dispatch; the wiring gives the server one when it runs with LTI).
type Dispatcher interface {
	Ensure(ctx context.Context, room, metadata string) error
}

// AgentDispatcher is a Dispatcher over LiveKit's AgentDispatch service.
type AgentDispatcher struct {
	Client interface {
		ListDispatch(ctx context.Context, req *lkproto.ListAgentDispatchRequest) (*lkproto.ListAgentDispatchResponse, error)
		CreateDispatch(ctx context.Context, req *lkproto.CreateAgentDispatchRequest) (*lkproto.AgentDispatch, error)
	}
	Rooms interface {
		ListRooms(ctx context.Context, req *lkproto.ListRoomsRequest) (*lkproto.ListRoomsResponse, error)
	}
	AgentName string
}

// Ensure dispatches metadata's exam to room when the room has no dispatch yet.
func (d AgentDispatcher) Ensure(ctx context.Context, room, metadata string) error {
	// The server answers a dispatch list of a room it does not have only after a timeout, so
	// ask for the room first: none yet is a first launch.
	rooms, err := d.Rooms.ListRooms(ctx, &lkproto.ListRoomsRequest{Names: []string{room}})
	if err != nil {
		return fmt.Errorf("look up the room: %w", err)
	}
	if len(rooms.GetRooms()) > 0 {
		list, err := d.Client.ListDispatch(ctx, &lkproto.ListAgentDispatchRequest{Room: room})
		if err != nil {
			return fmt.Errorf("list the room's dispatches: %w", err)
		}
		for _, ad := range list.GetAgentDispatches() {
			// The server adds a dispatch with no agent name to a new room (for workers that
			// take every room); ours names the examtui workers.
			if ad.GetAgentName() == d.AgentName {
				return nil // a relaunch: the exam is already on its way
			}
		}
	}
	_, err = d.Client.CreateDispatch(ctx, &lkproto.CreateAgentDispatchRequest{AgentName: d.AgentName, Room: room, Metadata: metadata})
	return err
}

// SpecCatalog offers the exams of a specs directory (as the workers read it) and the demo.
type SpecCatalog struct {
	Dir string
}

// Exams compiles each spec of the directory for its title and its marking scheme's maximum.
func (c SpecCatalog) Exams() ([]lti.CatalogExam, error) {
	names := []string{app.DemoSpec}
	if c.Dir != "" {
		ents, err := os.ReadDir(c.Dir)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			ext := filepath.Ext(e.Name())
			if e.Type().IsRegular() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
				names = append(names, strings.TrimSuffix(e.Name(), ext))
			}
		}
	}
	var out []lti.CatalogExam
	for _, n := range names {
		path := n
		if n != app.DemoSpec {
			path = filepath.Join(c.Dir, n)
			for _, ext := range []string{".yaml", ".yml", ".json"} {
				if _, err := os.Stat(path + ext); err == nil {
					path += ext
					break
				}
			}
		}
		exam, _, err := app.LoadSpec(path)
		if err != nil {
			continue // a spec that does not compile is not offered; examtui check says why
		}
		ce := lti.CatalogExam{ID: n, Title: exam.Title, Language: exam.Language}
		if exam.Marking != nil {
			ce.ScoreMaximum = float64(exam.Marking.MaxTotal)
		}
		out = append(out, ce)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Title < out[j].Title })
	return out, nil
}

// LTILauncher is what a verified LMS launch does on the candidate server: a learner joins
// their exam through the join page (the seat-cookie rules hold as for any link); an
// instructor sees who launched and how their exams stand.
type LTILauncher struct {
	Store      *sessions.Store
	Catalog    lti.Catalog
	Dispatcher Dispatcher
	// Metadata encodes a dispatch's metadata for exam, candidate name and candidate id.
	Metadata func(exam, name, candidateID string) (string, error)
	// Services reads a course's roster on an instructor's launch; nil: no roster sync.
	Services *lti.Services
	Logger   *slog.Logger
	Now      func() time.Time
	// Origin is the server's own origin (scheme://host[:port]): the instructor page's exam
	// picker must be posted from it.
	Origin string

	ties tieTokens // the instructor pages' open exam pickers
}

// CandidateID is examtui's id for an LMS user: the platform's issuer, hashed short, and the
// user's sub, so users of two platforms never collide.
func CandidateID(issuer, sub string) string {
	h := sha256.Sum256([]byte(issuer))
	return "lti:" + hex.EncodeToString(h[:4]) + ":" + sub
}

// roomFor is the room of one learner's exam from one placement: stable, so a relaunch finds
// the same exam.
func roomFor(l *lti.Launch, exam string) string {
	h := sha256.Sum256([]byte(l.Platform.Issuer + "\x00" + l.DeploymentID + "\x00" + l.ResourceLink.ID + "\x00" + l.Subject))
	return "lti-" + exam + "-" + hex.EncodeToString(h[:6])
}

func (x *LTILauncher) fail(w http.ResponseWriter, status int, msg string, err error) {
	x.Logger.Warn("lti launch failed", "status", status, "err", err)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = fmt.Fprintln(w, msg)
}

// Learner records the launch, starts the learner's exam in their room unless it runs already,
// and sends the browser to the join page with a fresh one-time code.
func (x *LTILauncher) Learner(w http.ResponseWriter, r *http.Request, l *lti.Launch) {
	exam, err := x.linkExam(r.Context(), l)
	if err != nil {
		x.fail(w, http.StatusInternalServerError, "this course link's exam cannot be read; try again", err)
		return
	}
	if exam == "" {
		x.fail(w, http.StatusNotFound, "this course link has no exam yet; ask your teacher to open it once and choose one", nil)
		return
	}
	exams, err := x.Catalog.Exams()
	if err != nil {
		x.fail(w, http.StatusInternalServerError, "the exam catalog cannot be read; tell your examiner", err)
		return
	}
	var placed *lti.CatalogExam
	for i := range exams {
		if exams[i].ID == exam {
			placed = &exams[i]
		}
	}
	if placed == nil {
		x.fail(w, http.StatusNotFound, fmt.Sprintf("this course link names no exam this server has (%q); ask your teacher to place the exam again", exam), nil)
		return
	}
	now := x.Now()
	cid := CandidateID(l.Platform.Issuer, l.Subject)
	room := roomFor(l, exam)
	rec := sessions.LTILaunch{CandidateID: cid, ResourceLink: l.ResourceLink.ID, Issuer: l.Platform.Issuer, ClientID: l.Platform.ClientID,
		DeploymentID: l.DeploymentID, Subject: l.Subject, Name: l.Name, Email: l.Email, Exam: exam, Room: room,
		ContextID: l.Context.ID, Created: now, Updated: now}
	if l.AGS != nil {
		rec.LineItem = l.AGS.LineItem
	}
	if l.NRPS != nil {
		rec.Memberships = l.NRPS.ContextMembershipsURL
	}
	if prev, err := x.Store.LTILaunchOf(r.Context(), cid, l.ResourceLink.ID); err == nil {
		room = prev.Room
		rec.Room = prev.Room
	}
	if err := x.Store.RecordLTILaunch(r.Context(), rec); err != nil {
		x.fail(w, http.StatusInternalServerError, "your launch could not be recorded; try again", err)
		return
	}
	// The learner joins the candidate roster, so the session is theirs in marking and exports.
	if err := x.Store.PutCandidates(r.Context(), []sessions.Candidate{RosterEntry(l.Platform.Issuer, lti.Member{
		UserID: l.Subject, Name: l.Name, Email: l.Email})}); err != nil {
		x.fail(w, http.StatusInternalServerError, "your launch could not be recorded; try again", err)
		return
	}
	md, err := x.Metadata(exam, l.Name, cid)
	if err == nil {
		err = x.Dispatcher.Ensure(r.Context(), room, md)
	}
	if err != nil {
		x.fail(w, http.StatusServiceUnavailable, "the exam could not be started; try again in a minute or tell your examiner", err)
		return
	}
	code, err := NewCode(r.Context(), x.Store, Invite{Room: room, Identity: DefaultIdentity, Name: l.Name}, now)
	if err != nil {
		x.fail(w, http.StatusInternalServerError, "your join link could not be made; try again", err)
		return
	}
	x.Logger.Info("lti learner launch", "room", room, "exam", exam, "code", digest(code))
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, joinPath(code, placed.Language), http.StatusSeeOther)
}

// FrameOrigins returns, for the join page of room, the course-page origins of the platform
// the room's exam was launched from (lti.Platform.CoursePageOrigins): the only pages that may
// show it in a frame. A room no launch made, or whose platform is no longer registered, gets
// none.
func FrameOrigins(st *sessions.Store, reg *lti.Registry, log *slog.Logger) func(ctx context.Context, room string) []string {
	return func(ctx context.Context, room string) []string {
		launches, err := st.LTILaunches(ctx, room, "")
		if err != nil {
			log.Warn("join page: the room's LTI launches", "room", room, "err", err)
			return nil
		}
		var out []string
		for _, l := range launches {
			p, err := reg.Find(l.Issuer, l.ClientID)
			if err != nil {
				continue
			}
			for _, o := range p.CoursePageOrigins() {
				if !slices.Contains(out, o) {
					out = append(out, o)
				}
			}
		}
		return out
	}
}

// RosterEntry is a course member as a candidate roster entry.
func RosterEntry(issuer string, m lti.Member) sessions.Candidate {
	return sessions.Candidate{CandidateID: CandidateID(issuer, m.UserID), Name: m.Name, Email: m.Email, SISUserID: m.SourcedID, LMSUserID: m.UserID}
}

// SyncRoster puts the learners of a course into the candidate roster; it returns how many.
func SyncRoster(ctx context.Context, st *sessions.Store, svc *lti.Services, p lti.Platform, membershipsURL string) (int, error) {
	members, err := svc.Members(ctx, p, membershipsURL)
	if err != nil {
		return 0, err
	}
	var cs []sessions.Candidate
	for _, m := range members {
		if (&lti.Launch{Roles: m.Roles}).IsLearner() {
			cs = append(cs, RosterEntry(p.Issuer, m))
		}
	}
	if len(cs) == 0 {
		return 0, nil
	}
	return len(cs), st.PutCandidates(ctx, cs)
}

// rosterSyncTimeout bounds the roster read an instructor's launch waits for.
const rosterSyncTimeout = 10 * time.Second

// Instructor brings the course's roster in (when the platform offers it) and shows the
// course's launches.
func (x *LTILauncher) Instructor(w http.ResponseWriter, r *http.Request, l *lti.Launch) {
	synced := ""
	if x.Services != nil && l.NRPS != nil && l.NRPS.ContextMembershipsURL != "" {
		ctx, cancel := context.WithTimeout(r.Context(), rosterSyncTimeout)
		n, err := SyncRoster(ctx, x.Store, x.Services, l.Platform, l.NRPS.ContextMembershipsURL)
		cancel()
		if err != nil {
			x.Logger.Warn("lti roster sync", "context", l.Context.ID, "err", err)
			synced = "The course roster could not be read this time (the examiners' log says why)."
		} else {
			synced = fmt.Sprintf("%d learner(s) of this course are in the candidate roster.", n)
		}
	}
	page, err := courseView(r.Context(), x.Store, l.Context.ID)
	if err != nil {
		x.fail(w, http.StatusInternalServerError, "the course's exams cannot be read", err)
		return
	}
	page.Course, page.Synced = l.Context.Title, synced
	if page.Course == "" {
		page.Course = "this course"
	}
	if page.Exam, err = x.linkExam(r.Context(), l); err != nil {
		x.fail(w, http.StatusInternalServerError, "this course link's exam cannot be read", err)
		return
	}
	if page.Exam == "" {
		// A link placed by hand without an exam, not tied yet: the picker ties it.
		if page.Picker, err = x.Catalog.Exams(); err != nil {
			x.Logger.Warn("lti instructor page: the exam catalog", "err", err)
		}
		if len(page.Picker) > 0 {
			if page.Token, err = x.ties.issue(l, x.Now()); err != nil {
				x.Logger.Warn("lti instructor page: the exam picker", "err", err)
				page.Picker = nil
			}
		}
		page.Unplaced, page.TiePath = true, PathTie
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// Framed by the launching platform's course pages only; no script, no style of its own;
	// its one form (the exam picker) posts to this server, which sees its Origin (same-origin
	// referrer policy: no-referrer would send "Origin: null").
	h.Set("Content-Security-Policy", "default-src 'none'; base-uri 'none'; form-action 'self'; "+frameAncestors(l.Platform.CoursePageOrigins()))
	h.Set("Referrer-Policy", "same-origin")
	_ = instructorPage.Execute(w, page)
}

// linkExam is the exam l's link runs: the link's custom exam when it names one, else the exam
// an instructor tied the link to ("" when neither).
func (x *LTILauncher) linkExam(ctx context.Context, l *lti.Launch) (string, error) {
	if e := l.Custom["exam"]; e != "" {
		return e, nil
	}
	e, err := x.Store.LTILinkExam(ctx, linkOf(l))
	if errors.Is(err, sessions.ErrNoLTILink) {
		return "", nil
	}
	return e, err
}

// joinPath is the join page of code, in the exam's language when it has one.
func joinPath(code, language string) string {
	if language == "" {
		return "/join/" + code
	}
	return "/join/" + code + "?" + url.Values{LanguageParam: {language}}.Encode()
}
