package audio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/examtui/examtui/internal/testutil"
)

// useNullALSA points ALSA at the null device config unless the caller (the Makefile) already did,
// so PortAudio has one default device on machines without a sound card. Under -short the test
// is skipped: it needs PortAudio.
func useNullALSA(t testing.TB) {
	t.Helper()
	testutil.SkipIfShort(t, "PortAudio")
	if os.Getenv("ALSA_CONFIG_PATH") != "" {
		return
	}
	p, err := filepath.Abs(filepath.Join(testdataDir(t), "..", "..", "testdata", "asound-null.conf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("ALSA_CONFIG_PATH", p)
}

func TestListDevicesOnNullALSA(t *testing.T) {
	useNullALSA(t)
	devs, err := ListDevices()
	if err != nil {
		t.Fatal(err)
	}
	var in, out bool
	for _, d := range devs {
		t.Logf("%+v", d)
		in = in || d.DefaultInput
		out = out || d.DefaultOutput
	}
	if !in || !out {
		t.Fatalf("want a default input and output device on the null config, got %+v", devs)
	}
}

func TestCaptureDeliversFramesOnNullDevice(t *testing.T) {
	useNullALSA(t)
	c, err := OpenCapture()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); !errors.Is(err, ErrAlreadyStarted) {
		t.Errorf("second Start: %v", err)
	}
	var got []Frame
	for f := range c.Frames() {
		got = append(got, f)
		if len(got) == 10 {
			break
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if len(got) != 10 {
		t.Fatalf("got %d frames", len(got))
	}
	for i, f := range got {
		if len(f.Samples) != FrameSamples || f.Offset != int64(i*FrameSamples) || f.Captured.IsZero() {
			t.Fatalf("frame %d: %d samples at %d, captured %v", i, len(f.Samples), f.Offset, f.Captured)
		}
	}
	for range c.Frames() { // drained and closed by Close
	}
}

func TestDeviceSelectionErrors(t *testing.T) {
	useNullALSA(t)
	cases := []struct {
		sel  string
		want error
	}{
		{"999", ErrDeviceNotFound},
		{"no such microphone", ErrDeviceNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.sel, func(t *testing.T) {
			_, err := OpenCapture(WithInputDevice(tc.sel))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestPlayerPlaysAndStops(t *testing.T) {
	p := nullPlayer(t)
	clip := Clip{Samples: speak16k(t, "Is breakfast included in the price?"), Rate: SampleRate}
	res, err := p.Play(context.Background(), clip)
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted || res.Played != res.Total {
		t.Fatalf("full play: %+v", res)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		p.Stop()
	}()
	res, err = p.Play(context.Background(), clip)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Played >= res.Total {
		t.Fatalf("stopped play: %+v", res)
	}
	t.Logf("stopped after %v of %v", res.Played, res.Total)
}
