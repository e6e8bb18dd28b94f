package app_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/cmd/examtui/internal/app/apptest"
	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/transport/livekit"
)

const waitAgent = "examtui-waiting"

// boardFeed runs a RoomWatcher into a board the test reads under its lock, the way the
// control room's loop feeds its board.
type boardFeed struct {
	mu    sync.Mutex
	board *monitor.Board
	scans int
}

func (f *boardFeed) read(fn func(b *monitor.Board)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f.board)
}

// TestRoomWatcherDispatchedNotStarted: a real LiveKit server with two exam dispatches and no
// worker. The watcher reports both rooms as dispatched, not started (with the candidate who
// waits in one, and since the dispatch); the board keeps them out of its exams and raises the
// not-started alert once they wait past the threshold. The dispatch of one is withdrawn: its
// room goes from the list. An exam bot then joins the other: it becomes the exam.
// (Before, the watcher skipped every room without a bot, and the control room showed nothing.)
func TestRoomWatcherDispatchedNotStarted(t *testing.T) {
	srv := lktest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	httpURL := strings.Replace(srv.URL, "ws://", "http://", 1)
	dispatches := lksdk.NewAgentDispatchServiceClient(httpURL, srv.APIKey, srv.Secret)
	dispatch := func(room string) *lkproto.AgentDispatch {
		t.Helper()
		d, err := dispatches.CreateDispatch(ctx, &lkproto.CreateAgentDispatchRequest{AgentName: waitAgent, Room: room})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	before := time.Now()
	mine := dispatch(srv.Room)
	gone := dispatch("withdrawn")
	// Another agent's dispatch is not an examtui exam.
	if _, err := dispatches.CreateDispatch(ctx, &lkproto.CreateAgentDispatchRequest{AgentName: "someone-else", Room: "other-agent"}); err != nil {
		t.Fatal(err)
	}
	apptest.Dial(ctx, t, srv, "cand-waiting", livekit.RoleCandidate)

	w, err := app.NewRoomWatcher(app.RoomWatchConfig{
		Rooms:      lksdk.NewRoomServiceClient(httpURL, srv.APIKey, srv.Secret),
		Dispatches: dispatches, AgentName: waitAgent,
		Dial: func(ctx context.Context, room string) (*livekit.Client, error) {
			return livekit.Dial(ctx, srv.URL, srv.RoomToken(room, "monitor-test", livekit.RoleExaminer))
		},
		Log: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	board, err := monitor.NewBoard(monitor.Thresholds{NotStarted: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	feed := &boardFeed{board: board}
	msgs := make(chan app.RoomMsg, 16)
	rctx, rcancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); w.Run(rctx, msgs) }()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-rctx.Done():
				return
			case rm := <-msgs:
				feed.mu.Lock()
				switch {
				case rm.Scanned:
					board.SetWaiting(rm.Waiting)
					feed.scans++
				case rm.Session != "":
					board.SetRoom(rm.Session, rm.Room)
				default:
					board.ApplyUpdate(rm.Update)
				}
				feed.mu.Unlock()
			}
		}
	}()
	defer func() { rcancel(); wg.Wait() }()

	rooms := func() map[string]monitor.Waiting {
		out := map[string]monitor.Waiting{}
		feed.read(func(b *monitor.Board) {
			for _, wt := range b.Waiting() {
				out[wt.Room] = *wt
			}
		})
		return out
	}
	testutil.Eventually(t, 20*time.Second, func() bool {
		r := rooms()
		return r[srv.Room].Candidate == "cand-waiting" && r["withdrawn"].Room != ""
	}, "both dispatched rooms listed, the candidate in one")
	got := rooms()
	if len(got) != 2 {
		t.Errorf("waiting rooms %v, want %s and withdrawn only", got, srv.Room)
	}
	wt := got[srv.Room]
	if wt.DispatchID != mine.GetId() || wt.Since.Before(before.Add(-time.Second)) || wt.Since.After(time.Now()) {
		t.Errorf("waiting %+v: want dispatch %s since about %v", wt, mine.GetId(), before)
	}
	var alerts []monitor.Alert
	feed.read(func(b *monitor.Board) {
		if b.Len() != 0 {
			t.Errorf("a dispatch not started counted as an exam: %d rows", b.Len())
		}
		if a := b.Tick(wt.Since.Add(29 * time.Second)); len(a) != 0 {
			t.Errorf("alerts before the threshold: %v", a)
		}
		alerts = b.Tick(wt.Since.Add(31 * time.Second))
	})
	if len(alerts) == 0 || alerts[0].Kind != monitor.AlertNotStarted || alerts[0].Room != srv.Room || alerts[0].Candidate != "cand-waiting" {
		t.Fatalf("alerts after 31 s: %+v, want not_started on %s first", alerts, srv.Room)
	}

	// The dispatch is withdrawn: its room leaves the list at the next scan.
	if _, err := dispatches.DeleteDispatch(ctx, &lkproto.DeleteAgentDispatchRequest{Room: "withdrawn", DispatchId: gone.GetId()}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, func() bool { _, ok := rooms()["withdrawn"]; return !ok }, "the withdrawn dispatch's room to go")
	if r := rooms()[srv.Room]; r.Alert == nil {
		t.Errorf("the room still waiting lost its alert: %+v", r)
	}

	// The exam bot joins: the room is the exam now, not a dispatch waiting.
	apptest.StartDemoBot(ctx, t, srv)
	testutil.Eventually(t, 30*time.Second, func() bool {
		var exam bool
		feed.read(func(b *monitor.Board) {
			live, _ := b.Rows(time.Time{})
			exam = len(live) == 1 && live[0].Room == srv.Room && live[0].Candidate == "cand-waiting" && len(b.Waiting()) == 0
		})
		return exam
	}, "the room's row to become its exam")
}
