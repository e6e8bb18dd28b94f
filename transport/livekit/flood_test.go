package livekit_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/livekit/protocol/auth"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/transport/livekit"
)

// The flood: floodPackets examiner commands from a participant without a role, spread evenly
// over floodSpan.
const (
	floodPackets = 10000
	floodSpan    = 10 * time.Second
	floodTicks   = 100
)

// joinRoleless joins identity with a plain token that carries no role attribute: the server
// vouches for no role, so the bot must refuse whatever it sends.
func joinRoleless(t *testing.T, srv *lktest.Server, identity string) *lksdk.Room {
	t.Helper()
	g := &auth.VideoGrant{RoomJoin: true, Room: srv.Room}
	g.SetCanPublish(true)
	g.SetCanPublishData(true)
	g.SetCanSubscribe(true)
	tok, err := auth.NewAccessToken(srv.APIKey, srv.Secret).SetIdentity(identity).SetVideoGrant(g).SetValidFor(time.Hour).ToJWT()
	if err != nil {
		t.Fatal(err)
	}
	room, err := lksdk.ConnectToRoomWithToken(srv.URL, tok, &lksdk.RoomCallback{}, lksdk.WithAutoSubscribe(false))
	if err != nil {
		t.Fatalf("%s join: %v", identity, err)
	}
	t.Cleanup(room.Disconnect)
	return room
}

// examinerView is what one examiner's client received: the refusal warnings, and the exam's
// state changes as they arrive.
type examinerView struct {
	mu       sync.Mutex
	warnings []string
	states   chan runtime.ExamState
}

// watchExaminer reads c's events until ctx ends; only a measured examiner's states are kept
// (roundTrip reads them), so an unread channel never stalls the reader.
func watchExaminer(ctx context.Context, t *testing.T, c *livekit.Client, measured bool) *examinerView {
	v := &examinerView{}
	if measured {
		v.states = make(chan runtime.ExamState, 64)
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-c.Events():
				pl, err := ev.Decode()
				if err != nil {
					t.Error(err)
					continue
				}
				switch p := pl.(type) {
				case *runtime.SystemErrorPayload:
					if ev.Seq == 0 && p.Code == runtime.CodeUnauthorizedMessage {
						v.mu.Lock()
						v.warnings = append(v.warnings, p.Message)
						v.mu.Unlock()
					}
				case *runtime.ExamStatePayload:
					if v.states != nil {
						v.states <- p.State
					}
				}
			}
		}
	}()
	return v
}

func (v *examinerView) seen() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.warnings...)
}

// roundTrip pauses or resumes the exam from the examiner's client and returns the time until
// the examiner sees the new state: a command that queues behind the flood on the bot's inbound
// path, answered through the journal and the outbox the warnings share.
func (v *examinerView) roundTrip(ctx context.Context, t *testing.T, c *livekit.Client, action runtime.ControlAction, want runtime.ExamState) time.Duration {
	t.Helper()
	start := time.Now()
	if err := c.SendControl(ctx, action); err != nil {
		t.Fatal(err)
	}
	for {
		if got := testutil.Recv(t, v.states, 20*time.Second, "exam state "+want.String()); got == want {
			return time.Since(start)
		}
	}
}

var heldRe = regexp.MustCompile(`^refused ([0-9,]+) more messages? from "?flooder"? in [0-9]+ s`)

// TestRejectionFloodIsAggregated floods the bot with 10,000 examiner commands in 10 s from a
// participant without a role. Each examiner must get a handful of warnings (a few verbatim,
// then aggregates that count the rest), every refused packet accounted for, and the exam must
// keep answering its examiner as quickly as when nobody floods it.
func TestRejectionFloodIsAggregated(t *testing.T) {
	e := startExam(t)
	ctrl, fan := liveController(t, "flood-1")
	e.serve(t, ctrl, fan)
	_, exr := e.dialBoth(t)
	exr2 := e.dial(t, "examiner-2", livekit.RoleExaminer)
	flooder := joinRoleless(t, e.srv, "flooder")
	e.waitAudience(t, "examiner-2", "flooder")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	views := []*examinerView{watchExaminer(ctx, t, exr, true), watchExaminer(ctx, t, exr2, false)}
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}

	// Quiet: the examiner pauses and resumes; these round trips are the normal latency.
	measure := func(n int) []float64 {
		var ms []float64
		for range n {
			for _, step := range []struct {
				action runtime.ControlAction
				state  runtime.ExamState
			}{{runtime.ControlPause, runtime.StatePaused}, {runtime.ControlResume, runtime.StateInProgress}} {
				ms = append(ms, float64(views[0].roundTrip(ctx, t, exr, step.action, step.state).Milliseconds()))
			}
		}
		return ms
	}
	quiet := measure(10)

	end, err := livekit.EncodeControl(runtime.ControlEnd)
	if err != nil {
		t.Fatal(err)
	}
	flooded := make(chan error, 1)
	floodOver := make(chan struct{})
	go func() {
		defer close(floodOver)
		tick := time.NewTicker(floodSpan / floodTicks)
		defer tick.Stop()
		for range floodTicks {
			for range floodPackets / floodTicks {
				if err := flooder.LocalParticipant.PublishDataPacket(lksdk.UserData(end),
					lksdk.WithDataPublishTopic(livekit.TopicExaminerCommands), lksdk.WithDataPublishReliable(true),
					lksdk.WithDataPublishDestination([]string{"examtui-bot"})); err != nil {
					flooded <- err
					return
				}
			}
			<-tick.C
		}
		flooded <- nil
	}()
	// During: the same round trips, for as long as the flood lasts.
	var during []float64
	for flooding := true; flooding; {
		during = append(during, measure(1)...)
		select {
		case <-floodOver:
			flooding = false
		default:
		}
	}
	if err := testutil.Recv(t, flooded, 30*time.Second, "the flood to be sent"); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, func() bool { return e.bot.Stats().Rejected == floodPackets },
		"the bot to refuse every packet of the flood")

	// Every examiner is told about every refused packet, in a handful of warnings.
	const handful = 6
	for i, v := range views {
		var verbatim, held int
		defer func() {
			if t.Failed() {
				t.Logf("examiner %d's warnings:\n%s", i+1, strings.Join(v.seen(), "\n"))
			}
		}()
		testutil.Eventually(t, 30*time.Second, func() bool {
			verbatim, held = 0, 0
			for _, w := range v.seen() {
				if m := heldRe.FindStringSubmatch(w); m != nil {
					n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
					if err != nil {
						t.Fatal(err)
					}
					held += n
				} else if strings.Contains(w, `"flooder"`) {
					verbatim++
				}
			}
			return verbatim+held >= floodPackets
		}, "the examiner's warnings to account for the whole flood")
		got := v.seen()
		if verbatim+held != floodPackets || len(got) > handful {
			t.Errorf("examiner %d got %d warnings (%d verbatim, %d more counted), want at most %d accounting for %d:\n%s",
				i+1, len(got), verbatim, held, handful, floodPackets, strings.Join(got, "\n"))
		}
	}
	if st := ctrl.Snapshot().State; st.Terminal() {
		t.Fatalf("the flood's end commands ended the exam: %s", st)
	}

	qp95, fp95 := headless.Percentile(quiet, 95), headless.Percentile(during, 95)
	t.Logf("examiner round trip: quiet p50 %.0f ms p95 %.0f ms; during the flood p50 %.0f ms p95 %.0f ms",
		headless.Percentile(quiet, 50), qp95, headless.Percentile(during, 50), fp95)
	if fp95 > max(2*qp95, qp95+250) {
		t.Errorf("during the flood the examiner waited %.0f ms (p95), the quiet p95 is %.0f ms", fp95, qp95)
	}
}
