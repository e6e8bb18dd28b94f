package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/monitor"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// TestDispatchBeyondCapacity: a pool of one worker with --max-exams 1. The first dispatch is
// taken; a second one, which the full pool cannot take, fails clearly at its --wait and leaves
// no dispatch behind. (Before, it printed an id, exited 0, and the exam never ran.)
func TestDispatchBeyondCapacity(t *testing.T) {
	p := newPool(t)
	p.startWorker("w1", "--max-exams", "1")
	p.dispatchExam("first", "hotel", "first")
	cd := p.join("first", "cand-first")
	testutil.Eventually(t, 30*time.Second, func() bool { return cd.has(0, runtime.EventSpoken, "") }, "the first exam's opening")

	start := time.Now()
	out, errOut, err := p.tryDispatch("full", "hotel", "full", "--wait", "12s")
	if !errors.Is(err, errNotTaken) || out != "" {
		t.Fatalf("a dispatch beyond the pool's capacity: out %q err %v (stderr %q), want %v and no id", out, err, errOut, errNotTaken)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the refused dispatch took %v with --wait 12s", took)
	}
	if !strings.Contains(err.Error(), `room "full"`) || !strings.Contains(err.Error(), "withdrawn") {
		t.Errorf("the error does not say which room and what became of the dispatch: %v", err)
	}
	p.noDispatchLeft("full")

}

// TestDispatchTakenWhenAPlaceFrees: the only worker is full when the exam is dispatched; its
// exam ends seconds later, and the dispatch is taken then: dispatch succeeds within its --wait
// and the exam starts for the candidate. The LiveKit server sometimes keeps offering the job
// until a place frees and sometimes drops it; dispatch makes it again (dispatchRetry).
func TestDispatchTakenWhenAPlaceFrees(t *testing.T) {
	p := newPool(t)
	w := p.startWorker("w1", "--max-exams", "1")
	p.dispatchExam("first", "hotel", "first")
	cd := p.join("first", "cand-first")
	testutil.Eventually(t, 30*time.Second, func() bool { return cd.has(0, runtime.EventSpoken, "") }, "the first exam's opening")

	type result struct {
		out, errOut string
		err         error
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, err := p.tryDispatch("second", "hotel", "second", "--wait", "60s")
		done <- result{out, errOut, err}
	}()
	// The second dispatch is on the server and the full worker cannot take it; some seconds
	// later (past the server's one offer of it) the examiner ends the first exam.
	client := lksdk.NewAgentDispatchServiceClient(httpURL(p.srv.URL), p.srv.APIKey, p.srv.Secret)
	testutil.Eventually(t, 30*time.Second, func() bool {
		res, err := client.ListDispatch(context.Background(), &lkproto.ListAgentDispatchRequest{Room: "second"})
		return err == nil && len(res.GetAgentDispatches()) > 0
	}, "the second dispatch on the server")
	time.Sleep(10 * time.Second) // the scenario: the worker stays full for a while
	if w.count("job assigned", "room", "second") != 0 {
		t.Fatal("the full worker took the second exam")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	exr, err := livekit.Dial(ctx, p.srv.URL, p.srv.RoomToken("first", "examiner-first", livekit.RoleExaminer))
	if err != nil {
		t.Fatal(err)
	}
	defer exr.Close()
	if err := exr.WaitBot(ctx); err != nil {
		t.Fatal(err)
	}
	if err := exr.SendControl(ctx, runtime.ControlEnd); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("dispatch did not return within 60 s")
	}
	if r.err != nil || !strings.HasPrefix(r.out, "AD_") {
		t.Fatalf("dispatch while the only worker was full, which freed its place during --wait: out %q err %v (stderr %q)", r.out, r.err, r.errOut)
	}
	second := p.join("second", "cand-second")
	testutil.Eventually(t, 30*time.Second, func() bool { return second.has(0, runtime.EventSpoken, "") }, "the second exam's opening")
}

// TestDispatchRejected: a worker takes a dispatch for a spec it does not have and rejects it:
// dispatch says so with the worker's reason and fails (it said "taken by a worker" and exited 0
// before, and the candidate waited in a room nobody would start), and withdraws the dispatch.
func TestDispatchRejected(t *testing.T) {
	p := newPool(t)
	p.startWorker("w1")
	start := time.Now()
	out, errOut, err := p.tryDispatch("nospec", "no-such-exam", "ada", "--wait", "20s")
	if !errors.Is(err, errRejected) || out != "" || strings.Contains(errOut, "taken by a worker") {
		t.Fatalf("a dispatch the worker rejected: out %q err %v (stderr %q), want %v and no id", out, err, errOut, errRejected)
	}
	if !strings.Contains(err.Error(), "unknown exam spec") || !strings.Contains(err.Error(), `room "nospec"`) {
		t.Errorf("the error does not give the worker's reason and the room: %v", err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the rejection took %v to report", took)
	}
	p.noDispatchLeft("nospec")
}

// noDispatchLeft fails the test when room still holds a dispatch of the pool's agent.
func (p *pool) noDispatchLeft(room string) {
	p.t.Helper()
	client := lksdk.NewAgentDispatchServiceClient(httpURL(p.srv.URL), p.srv.APIKey, p.srv.Secret)
	left, err := client.ListDispatch(context.Background(), &lkproto.ListAgentDispatchRequest{Room: room})
	if err != nil {
		p.t.Fatal(err)
	}
	for _, d := range left.GetAgentDispatches() {
		if d.GetAgentName() == e2eAgent && d.GetState().GetDeletedAt() == 0 {
			p.t.Errorf("a dispatch that will never run is left in room %s: %v", room, d)
		}
	}
}

// TestWaitingListShowsRejection: a dispatch made without waiting (--wait 0) that the worker
// rejects shows in the control room's waiting list with the worker's reason, and its
// not-started alert is raised at once. (Before, the rejected room dropped out of the list: the
// control room showed nothing while the candidate waited.)
func TestWaitingListShowsRejection(t *testing.T) {
	p := newPool(t)
	p.startWorker("w1")
	if out, errOut, err := p.tryDispatch("rej-room", "no-such-exam", "ada", "--wait", "0"); err != nil || !strings.HasPrefix(out, "AD_") {
		t.Fatalf("dispatch --wait 0: %v %q %q", err, out, errOut)
	}
	w, err := app.NewRoomWatcher(app.RoomWatchConfig{
		Rooms:      lksdk.NewRoomServiceClient(httpURL(p.srv.URL), p.srv.APIKey, p.srv.Secret),
		Dispatches: lksdk.NewAgentDispatchServiceClient(httpURL(p.srv.URL), p.srv.APIKey, p.srv.Secret), AgentName: e2eAgent,
		Dial: func(ctx context.Context, room string) (*livekit.Client, error) {
			return livekit.Dial(ctx, p.srv.URL, p.srv.RoomToken(room, "monitor-test", livekit.RoleExaminer))
		},
		Log: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	board, err := monitor.NewBoard(monitor.Thresholds{NotStarted: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	msgs := make(chan app.RoomMsg, 16)
	go w.Run(ctx, msgs)
	for {
		select {
		case rm := <-msgs:
			if !rm.Scanned {
				continue
			}
			board.SetWaiting(rm.Waiting)
			alerts := board.Tick(time.Now())
			for _, wt := range board.Waiting() {
				if wt.Room == "rej-room" && strings.Contains(wt.Rejected, "unknown exam spec") {
					if len(alerts) != 1 || !strings.Contains(alerts[0].Detail, "rejected") {
						t.Errorf("alerts %+v, want the not-started alert at once with the rejection", alerts)
					}
					return
				}
			}
		case <-ctx.Done():
			t.Fatalf("the waiting list never showed the rejection: %+v", board.Waiting())
		}
	}
}

// TestDispatchLinkInExamLanguage: the join link dispatch prints opens the page in the exam's
// language, read from --specs (the workers' directory) or the built-in demo; --language still
// wins; a --specs directory without the spec is refused before anything is dispatched. (Before,
// the link had the language only when --language said it: a French exam's page came up in
// examtui serve's default language.)
func TestDispatchLinkInExamLanguage(t *testing.T) {
	p := newPool(t)
	fr, err := os.ReadFile("../../examples/oral-fr-b2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.specs, "oral-fr.yaml"), fr, 0o600); err != nil {
		t.Fatal(err)
	}
	common := append(p.storeArgs(), "--serve-url", "http://127.0.0.1:9", "--wait", "0")
	for _, tc := range []struct {
		room, spec string
		extra      []string
		want       string
	}{
		{"fr-specs", "oral-fr", []string{"--specs", p.specs}, "?lang=fr"},
		{"demo", app.DemoSpec, nil, "?lang=en"},
		{"fr-said", "oral-fr", []string{"--specs", p.specs, "--language", "ar"}, "?lang=ar"},
	} {
		_, errOut, err := p.tryDispatch(tc.room, tc.spec, "Ada", append(common, tc.extra...)...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.room, err, errOut)
		}
		link := ""
		for _, l := range strings.Split(errOut, "\n") {
			if after, ok := strings.CutPrefix(l, "candidate's join link: "); ok {
				link = after
			}
		}
		if !strings.HasSuffix(link, tc.want) {
			t.Errorf("%s: join link %q, want it to end in %s\n%s", tc.room, link, tc.want, errOut)
		}
	}
	_, _, err = p.tryDispatch("missing", "oral-de", "Ada", append(common, "--specs", p.specs)...)
	if err == nil || !strings.Contains(err.Error(), "--specs") || !strings.Contains(err.Error(), "oral-de") {
		t.Errorf("a spec --specs does not hold: %v, want an error naming --specs and the spec", err)
	}
	rooms, err := lksdk.NewRoomServiceClient(httpURL(p.srv.URL), p.srv.APIKey, p.srv.Secret).ListRooms(context.Background(), &lkproto.ListRoomsRequest{Names: []string{"missing"}})
	if err != nil || len(rooms.GetRooms()) != 0 {
		t.Errorf("the refused dispatch made its room: %v %v", rooms.GetRooms(), err)
	}
}
