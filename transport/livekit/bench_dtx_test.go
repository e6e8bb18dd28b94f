package livekit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/lktest"
	"github.com/examtui/examtui/transport/livekit"
)

// BenchmarkIdleSpeakingBots runs n bots that can speak (a published voice track, not
// WithoutSpeech), each in its own room, each saying a short line and then nothing: a worker
// whose examiners are all listening. One op is one second of that silence. It reports the
// process's user+sys CPU per bot (cpu-%/bot: 100 is one core); the server runs in its own
// process and is not counted. voice=none runs the same bots WithoutSpeech (a track that never
// sends): the floor, what the connections themselves cost.
func BenchmarkIdleSpeakingBots(b *testing.B) {
	for _, n := range []int{16} {
		b.Run(fmt.Sprintf("bots=%d/voice=speaking", n), func(b *testing.B) { benchIdleBots(b, n, true) })
		b.Run(fmt.Sprintf("bots=%d/voice=none", n), func(b *testing.B) { benchIdleBots(b, n, false) })
	}
}

func benchIdleBots(b *testing.B, n int, speaking bool) {
	srv := lktest.Start(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bots := make([]*livekit.Room, n)
	for i := range bots {
		var opts []livekit.Option
		if !speaking {
			opts = append(opts, livekit.WithoutSpeech())
		}
		bot, err := livekit.Join(ctx, livekit.Config{URL: srv.URL, Token: srv.RoomToken(fmt.Sprintf("idle-%d", i), "bot", livekit.RoleBot)}, opts...)
		if err != nil {
			b.Fatal(err)
		}
		defer bot.Close()
		bots[i] = bot
	}
	time.Sleep(2 * time.Second) // the tracks are bound (writes before that are dropped)
	line := tone(300, 200*time.Millisecond, 8000)
	for _, bot := range bots {
		if !speaking {
			break
		}
		if err := bot.Voice().Write(line); err != nil {
			b.Fatal(err)
		}
		if err := bot.Voice().WaitPlayout(ctx); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(time.Second) // tails and connection set-up settle
	b.ResetTimer()
	cpu0, wall0 := cpuTime(), time.Now()
	time.Sleep(time.Duration(b.N) * time.Second)
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	b.StopTimer()
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds()/float64(n), "cpu-%/bot")
}
