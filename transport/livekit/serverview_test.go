package livekit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/transport/livekit"
)

// joinWithAPI joins a bot that has the server's API key and secret (as `examtui run --room`
// with credentials, or a worker), so it can ask the server who is in the room.
func joinWithAPI(t *testing.T, srv *lktest.Server, in *inputs) *livekit.Room {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opts := append([]livekit.Option{livekit.WithLogger(testLogger(t))}, in.options()...)
	bot, err := livekit.Join(ctx, livekit.Config{URL: srv.URL, APIKey: srv.APIKey, APISecret: srv.Secret,
		Room: srv.Room, Identity: "examtui-bot"}, opts...)
	if err != nil {
		t.Fatalf("bot join: %v", err)
	}
	t.Cleanup(func() { bot.Close() })
	return bot
}

// A candidate who only types publishes nothing, so the server announces them to the bot only
// on its 3 s participant batch. The waiting bot asks the server instead: it sees the
// candidate through the server query (not the announcement), addresses its opening to them,
// and takes their typed answer, all before the server has announced them.
func TestTypingCandidateSeenThroughServerQuery(t *testing.T) {
	srv := lktest.Start(t)
	in := newInputs()
	bot := joinWithAPI(t, srv, in)

	waited := make(chan string, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		id, err := bot.WaitCandidate(ctx)
		if err != nil {
			t.Error(err)
		}
		waited <- id
	}()
	start := time.Now()
	cand := dialClient(t, srv, "typist", livekit.RoleCandidate)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if id := <-waited; id != "typist" {
		t.Fatalf("WaitCandidate = %q, want typist", id)
	}
	seen := time.Since(start)
	if n := bot.Stats().ServerArrivals; n != 1 {
		t.Fatalf("ServerArrivals = %d, want 1: the candidate was not found through the server query", n)
	}

	opening, err := runtime.NewEvent("sess-typist", 1, time.Now(), &runtime.SpokenPayload{NodeID: "welcome", Text: "Welcome. Tell me your name.", Source: "intro"})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.Publish(opening); err != nil {
		t.Fatal(err)
	}
	got := collect(ctx, cand.Events(), 10*time.Second, func(evs []runtime.Event) bool { return len(evs) > 0 })
	if len(got) == 0 || got[0].Event != runtime.EventSpoken {
		t.Fatalf("the candidate received %v, want the opening", got)
	}
	heard := time.Since(start)

	// The candidate answers at once; the bot takes it from a sender it knows through the
	// server only.
	if err := cand.WaitBot(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cand.SendCandidateText(ctx, "My name is Ada.", 1); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() bool {
		texts, _ := in.snapshot()
		return len(texts) == 1 && texts[0].Text == "My name is Ada." && texts[0].Sender == "typist"
	}, "the typed answer")
	t.Logf("candidate seen %s after starting to join, opening received after %s", seen.Round(time.Millisecond), heard.Round(time.Millisecond))
}

// The server query vouches for roles by the same rule as the announcements: a participant
// whose token lets it change its own attributes is no candidate, whatever it claims.
func TestServerQueryKeepsTheTrustRule(t *testing.T) {
	srv := lktest.Start(t)
	bot := joinWithAPI(t, srv, newInputs())
	joinHostile(t, srv, "climber", "candidate")
	testutil.Eventually(t, 10*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, _ = bot.WaitCandidate(ctx)
		return bot.Stats().ServerArrivals >= 1
	}, "the server query to list the climber")
	for _, p := range bot.Participants() {
		if p.Identity == "climber" && p.Role != livekit.RoleUnknown {
			t.Fatalf("climber has role %s, want none", p.Role)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if id, err := bot.WaitCandidate(ctx); !errors.Is(err, livekit.ErrCandidateMissing) {
		t.Fatalf("WaitCandidate = %q, %v; want ErrCandidateMissing", id, err)
	}
}

// Without the API key and secret (a bot given only a token) nothing changes: the bot waits for
// the server's announcement.
func TestNoServerQueryWithoutCredentials(t *testing.T) {
	e := startExam(t)
	dialClient(t, e.srv, "typist", livekit.RoleCandidate)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if id, err := e.bot.WaitCandidate(ctx); err != nil || id != "typist" {
		t.Fatalf("WaitCandidate = %q, %v", id, err)
	}
	if n := e.bot.Stats().ServerArrivals; n != 0 {
		t.Fatalf("ServerArrivals = %d without credentials, want 0", n)
	}
}

// A bot joined WithoutSpeech still publishes a voice track, so the server announces it to the
// candidate at once (it is a publisher), but the track carries no audio and the voice refuses
// writes.
func TestBotWithoutSpeechPublishesASilentTrack(t *testing.T) {
	srv := lktest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The candidate is there first, as when the candidate's join dispatches the exam.
	cand := dialClient(t, srv, "typist", livekit.RoleCandidate)
	bot, err := livekit.Join(ctx, livekit.Config{URL: srv.URL, Token: srv.Token("examtui-bot", livekit.RoleBot)},
		livekit.WithLogger(testLogger(t)), livekit.WithoutSpeech())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bot.Close() })
	if err := bot.Voice().Write(make([]int16, 320)); !errors.Is(err, livekit.ErrNoSpeech) {
		t.Fatalf("Write on a bot without speech: %v, want ErrNoSpeech", err)
	}
	rooms := lksdk.NewRoomServiceClient(srv.URL, srv.APIKey, srv.Secret)
	testutil.Eventually(t, 10*time.Second, func() bool {
		p, err := rooms.GetParticipant(ctx, &lkproto.RoomParticipantIdentity{Room: srv.Room, Identity: "examtui-bot"})
		return err == nil && p.GetIsPublisher() && len(p.GetTracks()) == 1 && p.GetTracks()[0].GetType() == lkproto.TrackType_AUDIO
	}, "the server to list the bot as a publisher")
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Second) // well inside the 3 s batch a non-publisher waits for
	defer wcancel()
	if err := cand.WaitBot(wctx); err != nil {
		t.Fatalf("the candidate did not see the bot at once: %v", err)
	}
}
