//go:build linux

package audio

/*
#cgo pkg-config: alsa jack
#include <alsa/asoundlib.h>
#include <jack/jack.h>

static void examtui_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {}
static void examtui_jack_quiet(const char *msg) {}

static void examtui_quiet_audio_libs(void) {
	snd_lib_error_set_handler(examtui_alsa_quiet);
	jack_set_error_function(examtui_jack_quiet);
	jack_set_info_function(examtui_jack_quiet);
}
*/
import "C"

import "sync"

var quietOnce sync.Once

// quietAudioLibs stops ALSA and JACK from writing their probing chatter ("cannot find card",
// "jack server is not running") to stderr while PortAudio enumerates devices: the terminal
// belongs to the TUI, and every real failure reaches us as a PortAudio error anyway.
func quietAudioLibs() { quietOnce.Do(func() { C.examtui_quiet_audio_libs() }) }
