package audio

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gordonklaus/portaudio"
)

// DeviceInfo describes one PortAudio device.
type DeviceInfo struct {
	Index             int     `json:"index"`
	Name              string  `json:"name"`
	HostAPI           string  `json:"hostApi"`
	MaxInputChannels  int     `json:"maxInputChannels"`
	MaxOutputChannels int     `json:"maxOutputChannels"`
	DefaultSampleRate float64 `json:"defaultSampleRate"`
	DefaultInput      bool    `json:"defaultInput"`
	DefaultOutput     bool    `json:"defaultOutput"`
}

// paMu serialises PortAudio initialisation; PortAudio counts Initialize/Terminate pairs itself.
var (
	paMu         sync.Mutex
	paIDsSkipped bool
)

// skipLowStreamIDs works around the binding passing its integer stream id to C as
// unsafe.Pointer(id): under the race detector (which turns on checkptr) any id from 1 to 4095
// aborts the process with "checkptr: pointer arithmetic computed bad pointer value", so the
// second stream a process opened would crash `go test -race`. OpenStream takes an id even when
// it rejects its arguments before reaching C, so using up the first 4096 ids once makes every
// later id an address outside the Go heap, which checkptr accepts. It costs microseconds.
// paMu is held and PortAudio is initialised.
func skipLowStreamIDs() {
	if paIDsSkipped {
		return
	}
	paIDsSkipped = true
	for range 4096 {
		_, _ = portaudio.OpenStream(portaudio.StreamParameters{}) // "too few args": no C call
	}
}

// paAcquire initialises PortAudio and returns the matching release.
func paAcquire() (func(), error) {
	paMu.Lock()
	defer paMu.Unlock()
	quietAudioLibs()
	if err := portaudio.Initialize(); err != nil {
		return nil, fmt.Errorf("%w: initialise: %w", ErrPortAudio, err)
	}
	skipLowStreamIDs()
	return func() {
		paMu.Lock()
		defer paMu.Unlock()
		_ = portaudio.Terminate()
	}, nil
}

// ListDevices lists PortAudio's devices.
func ListDevices() ([]DeviceInfo, error) {
	release, err := paAcquire()
	if err != nil {
		return nil, err
	}
	defer release()
	devs, err := portaudio.Devices()
	if err != nil {
		return nil, fmt.Errorf("%w: list devices: %w", ErrPortAudio, err)
	}
	defIn, _ := portaudio.DefaultInputDevice()
	defOut, _ := portaudio.DefaultOutputDevice()
	out := make([]DeviceInfo, 0, len(devs))
	for _, d := range devs {
		info := DeviceInfo{
			Index: d.Index, Name: d.Name, MaxInputChannels: d.MaxInputChannels, MaxOutputChannels: d.MaxOutputChannels,
			DefaultSampleRate: d.DefaultSampleRate,
			DefaultInput:      defIn != nil && defIn.Index == d.Index && d.MaxInputChannels > 0,
			DefaultOutput:     defOut != nil && defOut.Index == d.Index && d.MaxOutputChannels > 0,
		}
		if d.HostApi != nil {
			info.HostAPI = d.HostApi.Name
		}
		out = append(out, info)
	}
	return out, nil
}

// Direction is capture or playback.
type Direction int

// Directions.
const (
	Input Direction = iota + 1
	Output
)

func (d Direction) String() string {
	switch d {
	case Input:
		return "input"
	case Output:
		return "output"
	}
	return "unknown"
}

func (d Direction) flag() string { return "--" + d.String() + "-device" }

// findDevice resolves a selector: "" is the default device, a number is a device index, anything
// else is matched against names (exact, then a unique case-insensitive substring). PortAudio
// must be initialised.
func findDevice(sel string, dir Direction) (*portaudio.DeviceInfo, error) {
	channels := func(d *portaudio.DeviceInfo) int {
		if dir == Input {
			return d.MaxInputChannels
		}
		return d.MaxOutputChannels
	}
	sel = strings.TrimSpace(sel)
	if sel == "" {
		var d *portaudio.DeviceInfo
		var err error
		if dir == Input {
			d, err = portaudio.DefaultInputDevice()
		} else {
			d, err = portaudio.DefaultOutputDevice()
		}
		if err != nil || d == nil || channels(d) < 1 {
			return nil, noDeviceError(dir, err)
		}
		return d, nil
	}
	devs, err := portaudio.Devices()
	if err != nil {
		return nil, fmt.Errorf("%w: list devices: %w", ErrPortAudio, err)
	}
	if idx, err := strconv.Atoi(sel); err == nil {
		for _, d := range devs {
			if d.Index == idx {
				if channels(d) < 1 {
					return nil, fmt.Errorf("%w: device %d (%s) has no %s channels", ErrDeviceNotFound, idx, d.Name, dir)
				}
				return d, nil
			}
		}
		return nil, fmt.Errorf("%w: no device with index %d (see `examtui devices`)", ErrDeviceNotFound, idx)
	}
	var matches []*portaudio.DeviceInfo
	for _, d := range devs {
		if channels(d) < 1 {
			continue
		}
		if d.Name == sel {
			return d, nil
		}
		if strings.Contains(strings.ToLower(d.Name), strings.ToLower(sel)) {
			matches = append(matches, d)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return nil, fmt.Errorf("%w: no %s device matches %q (see `examtui devices`)", ErrDeviceNotFound, dir, sel)
	}
	names := make([]string, len(matches))
	for i, d := range matches {
		names[i] = fmt.Sprintf("%d %q", d.Index, d.Name)
	}
	return nil, fmt.Errorf("%w: %q matches several %s devices: %s; use the index", ErrDeviceNotFound, sel, dir, strings.Join(names, ", "))
}

// noDeviceError says what to do when there is no device.
func noDeviceError(dir Direction, cause error) error {
	hint := fmt.Sprintf("name one with %s (see `examtui devices`), check that ALSA sees a sound card (`aplay -l`)", dir.flag())
	if os.Getenv("ALSA_CONFIG_PATH") == "" {
		hint += " or point ALSA_CONFIG_PATH at a config with a default device"
	}
	if dir == Input {
		hint += ", or answer by typing (run without --mic)"
	}
	if cause != nil {
		return fmt.Errorf("%w for %s (%w): %s", ErrNoDevice, dir, cause, hint)
	}
	return fmt.Errorf("%w for %s: %s", ErrNoDevice, dir, hint)
}

// monoStream is a mono 16-bit PortAudio stream opened on one device, and the PortAudio
// reference it holds until release.
type monoStream struct {
	stream  *portaudio.Stream
	dev     *portaudio.DeviceInfo
	rate    float64
	release func()
}

// openMono acquires PortAudio, resolves sel (see findDevice) and opens, without starting, a mono
// stream on it for dir at 16 kHz, or at the device's own rate when it does not take 16 kHz, in
// buffers of 1/buffersPerSecond s. On failure nothing stays acquired.
func openMono(sel string, dir Direction, buffersPerSecond int, callback any) (monoStream, error) {
	release, err := paAcquire()
	if err != nil {
		return monoStream{}, err
	}
	dev, err := findDevice(sel, dir)
	if err != nil {
		release()
		return monoStream{}, err
	}
	var p portaudio.StreamParameters
	if dir == Input {
		p = portaudio.LowLatencyParameters(dev, nil)
		p.Input.Channels = 1
	} else {
		p = portaudio.LowLatencyParameters(nil, dev)
		p.Output.Channels = 1
	}
	rate := pickRate(p)
	p.SampleRate = rate
	p.FramesPerBuffer = int(rate) / buffersPerSecond
	stream, err := portaudio.OpenStream(p, callback)
	if err != nil {
		release()
		return monoStream{}, fmt.Errorf("%w: open %s %q at %.0f Hz: %w", ErrPortAudio, dir, dev.Name, rate, err)
	}
	return monoStream{stream: stream, dev: dev, rate: rate, release: release}, nil
}

// pickRate returns 16 kHz when the device takes it, else its default rate (we resample).
func pickRate(p portaudio.StreamParameters) float64 {
	p.SampleRate = SampleRate
	if err := portaudio.IsFormatSupported(p, make([]int16, 1)); err == nil {
		return SampleRate
	}
	if p.Input.Device != nil {
		return p.Input.Device.DefaultSampleRate
	}
	return p.Output.Device.DefaultSampleRate
}
