package roomcheck

import "github.com/examtui/examtui/runtime/headless"

// capabilities is what a transport of the harness can do, as a voice-agent test adapter
// declares it: the report's capability line, and how interrupt steps interrupt.
type capabilities struct {
	Transport string
	// NativeInterrupt: the transport has an interrupt message the bot honours (LiveKit: a
	// {"type":"stop"} on the candidate-input topic), which cuts the examiner deterministically
	// instead of racing its voice activity detection.
	NativeInterrupt bool
}

// liveKitCapabilities is the LiveKit room's.
var liveKitCapabilities = capabilities{Transport: "livekit", NativeInterrupt: true}

// interruption decides how interrupt steps interrupt: the one asked for, else native in a
// typed run and timing-based in a spoken one; a transport without a native interrupt falls
// back to timing, and note says so.
func (c capabilities) interruption(asked string, spoken bool) (method, note string) {
	method = asked
	if method == "" {
		method = headless.InterruptTiming
		if !spoken {
			method = headless.InterruptNative
		}
	}
	if method == headless.InterruptNative && !c.NativeInterrupt {
		method = headless.InterruptTiming
		note = "this transport has no native interrupt: interrupt steps fall back to a timing-based barge-in (the line spoken over the examiner)"
		if !spoken {
			note += "; " + noTypedTiming
		}
	}
	return method, note
}
