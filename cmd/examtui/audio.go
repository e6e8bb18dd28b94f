package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/spf13/cobra"
)

func newAudioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audio",
		Short: "Audio tools: voice activity, speech synthesis, microphone check",
		Long: `audio holds tools for the local voice path: see where the VAD and endpointing cut a
recording into turns, synthesise examiner speech, and check the microphone.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newAudioVADCmd(), newAudioSayCmd(), newAudioMicCmd())
	return cmd
}

type vadUtterance struct {
	StartMs   int64   `json:"startMs"`
	EndMs     int64   `json:"endMs"`
	DecidedMs int64   `json:"decidedMs"`
	DelayMs   int64   `json:"delayMs"`
	Forced    bool    `json:"forced,omitempty"`
	Seconds   float64 `json:"seconds"`
}

func newAudioVADCmd() *cobra.Command {
	var (
		asJSON             bool
		minDelay, maxDelay time.Duration
	)
	cmd := &cobra.Command{
		Use:   "vad FILE.wav",
		Short: "Print the candidate turns the VAD and endpointing find in a WAV file",
		Long: `vad runs a WAV file (any rate, mono or stereo) through the same energy VAD and endpointing
the microphone uses, and prints each utterance: where the speech starts and ends and when the
endpoint was decided (the end plus the endpointing delay). Pauses shorter than --min-delay stay
inside one utterance.`,
		Example: `  examtui audio vad answer.wav
  examtui audio vad --min-delay 800ms --json answer.wav`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			clip, err := audio.ReadWAVFile(args[0])
			if err != nil {
				return err
			}
			c16, err := clip.To16k()
			if err != nil {
				return err
			}
			cfg := audio.DefaultEndpointConfig()
			cfg.MinEndpointingDelay, cfg.MaxEndpointingDelay = minDelay, maxDelay
			if minDelay > audio.FrameDuration && cfg.VAD.Hangover >= minDelay {
				cfg.VAD.Hangover = minDelay - audio.FrameDuration // a short delay needs a shorter hangover
			}
			ep, err := audio.NewEndpointer(cfg)
			if err != nil {
				return err
			}
			var utts []vadUtterance
			add := func(u *audio.Utterance) {
				utts = append(utts, vadUtterance{StartMs: u.StartMs, EndMs: u.EndMs, DecidedMs: u.DecidedMs,
					DelayMs: u.Delay.Milliseconds(), Forced: u.Forced, Seconds: float64(u.EndMs-u.StartMs) / 1000})
			}
			s := c16.Samples
			for off := 0; off < len(s); off += audio.FrameSamples {
				f := make([]int16, audio.FrameSamples)
				copy(f, s[off:min(off+audio.FrameSamples, len(s))])
				if r := ep.Push(audio.Frame{Samples: f, Offset: int64(off)}); r.Utterance != nil {
					add(r.Utterance)
				}
			}
			if u := ep.Flush(); u != nil {
				add(u)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				if utts == nil {
					utts = []vadUtterance{}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(utts)
			}
			if len(utts) == 0 {
				fmt.Fprintf(out, "no speech found in %s (%.1f s)\n", args[0], c16.Duration().Seconds())
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "#\tSTART ms\tEND ms\tSECONDS\tDECIDED ms")
			for i, u := range utts {
				fmt.Fprintf(tw, "%d\t%d\t%d\t%.2f\t%d\n", i+1, u.StartMs, u.EndMs, u.Seconds, u.DecidedMs)
			}
			return tw.Flush()
		},
	}
	def := audio.DefaultEndpointConfig()
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().DurationVar(&minDelay, "min-delay", def.MinEndpointingDelay, "silence that ends a turn (MinEndpointingDelay)")
	cmd.Flags().DurationVar(&maxDelay, "max-delay", def.MaxEndpointingDelay, "longest wait when the turn looks unfinished (MaxEndpointingDelay)")
	return cmd
}

func newAudioSayCmd() *cobra.Command {
	var (
		out, voice, lang, device string
		speed                    float64
	)
	cmd := &cobra.Command{
		Use:   "say TEXT",
		Short: "Speak text with the offline voice (espeak-ng), to the speakers or a WAV file",
		Long: `say synthesises text sentence by sentence with espeak-ng, as the examiner's voice does, and
plays it on the output device or writes a 16 kHz WAV file with --output.`,
		Example: `  examtui audio say "Good morning. What would you like for breakfast?"
  examtui audio say --speed 0.8 -o slow.wav "Could you say that again?"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text := strings.Join(args, " ")
			synth, err := audio.NewEspeak()
			if err != nil {
				return err
			}
			opts := audio.SpeakOptions{Voice: voice, Speed: speed, Language: lang}
			ctx := cmd.Context()
			if out != "" {
				var all []int16
				for _, s := range audio.SplitSentences(text) {
					c, err := synth.Synthesize(ctx, s, opts)
					if err != nil {
						return err
					}
					c16, err := c.To16k()
					if err != nil {
						return err
					}
					all = append(all, c16.Samples...)
				}
				return audio.WriteWAVFile(out, audio.Clip{Samples: all, Rate: audio.SampleRate})
			}
			player, err := audio.OpenPlayer(audio.WithOutputDevice(device))
			if err != nil {
				return err
			}
			defer player.Close()
			for _, s := range audio.SplitSentences(text) {
				c, err := synth.Synthesize(ctx, s, opts)
				if err != nil {
					return err
				}
				if _, err := player.Play(ctx, c); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write a WAV file instead of playing")
	cmd.Flags().StringVar(&voice, "voice", "", "espeak-ng voice (default from --language)")
	cmd.Flags().StringVar(&lang, "language", "en", "BCP-47 language tag")
	cmd.Flags().Float64Var(&speed, "speed", 1, "speed multiplier (0.5..2)")
	cmd.Flags().StringVar(&device, "output-device", "", "output device index or name (see `examtui devices`)")
	return cmd
}

func newAudioMicCmd() *cobra.Command {
	var (
		device   string
		duration time.Duration
		record   string
	)
	cmd := &cobra.Command{
		Use:   "mic",
		Short: "Check the microphone: show the input level and the turns the VAD finds",
		Long: `mic listens on the input device for --duration (Ctrl-C stops early), printing the input
level twice a second and each turn the endpointing cuts; --record keeps the audio as a WAV file.`,
		Example: `  examtui audio mic --duration 10s
  examtui audio mic --input-device 2 --record mic.wav`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			capt, err := audio.OpenCapture(audio.WithInputDevice(device))
			if err != nil {
				return err
			}
			defer capt.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, duration)
			defer cancel()
			ep, err := audio.NewEndpointer(audio.EndpointConfig{})
			if err != nil {
				return err
			}
			if err := capt.Start(ctx); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "listening on %q at %.0f Hz for %v\n", capt.Device().Name, capt.Rate(), duration)
			var all []int16
			for f := range capt.Frames() {
				if record != "" {
					all = append(all, f.Samples...)
				}
				r := ep.Push(f)
				if f.Offset%(audio.SampleRate/2) == 0 {
					fmt.Fprintf(out, "%6.1f s  level %6.1f dBFS  floor %6.1f dBFS\n", float64(f.Offset)/audio.SampleRate, r.VAD.LevelDB, r.VAD.FloorDB)
				}
				if r.Utterance != nil {
					fmt.Fprintf(out, "turn %d..%d ms\n", r.Utterance.StartMs, r.Utterance.EndMs)
				}
			}
			if n := capt.Dropped(); n > 0 {
				fmt.Fprintf(out, "dropped %d samples\n", n)
			}
			if n := capt.Early(); n > 0 {
				fmt.Fprintf(out, "discarded %d device samples delivered faster than real time (a null device?)\n", n)
			}
			if record != "" {
				return audio.WriteWAVFile(record, audio.Clip{Samples: all, Rate: audio.SampleRate})
			}
			if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&device, "input-device", "", "input device index or name (see `examtui devices`)")
	cmd.Flags().DurationVar(&duration, "duration", 5*time.Second, "how long to listen")
	cmd.Flags().StringVar(&record, "record", "", "write what was heard to this WAV file")
	return cmd
}
