package livekit_test

import (
	"errors"
	"testing"
	"time"

	"github.com/examtui/examtui/transport/livekit"
	"github.com/examtui/examtui/transport/voicepath"
)

func TestLineEndWire(t *testing.T) {
	ok := []struct {
		name string
		in   voicepath.LineEnd
	}{
		{"whole and idle", voicepath.LineEnd{Seq: 12, Lines: 1, Played: 2310 * time.Millisecond, Total: 2310 * time.Millisecond, Ending: voicepath.LineWhole, Idle: true, Through: 12}},
		{"cut with more queued", voicepath.LineEnd{Seq: 7, Lines: 2, Played: 1630 * time.Millisecond, Total: 3028625 * time.Microsecond, Ending: voicepath.LineCut}},
		{"dropped", voicepath.LineEnd{Seq: 9, Lines: 3, Ending: voicepath.LineDropped, Idle: true, Through: 9}},
		{"failed", voicepath.LineEnd{Seq: 4, Lines: 1, Ending: voicepath.LineFailed}},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			data, err := livekit.EncodeLineEnd(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := livekit.ParseLineEnd(data)
			if err != nil || got != tc.in {
				t.Fatalf("ParseLineEnd(%s) = %+v, %v; want %+v", data, got, err, tc.in)
			}
		})
	}
	read := []struct {
		name, in string
		want     voicepath.LineEnd
		err      bool
	}{
		{name: "a newer version with a field it does not know",
			in:   `{"schemaVersion":7,"type":"line_end","seq":3,"lines":1,"playedMs":10,"totalMs":20,"ending":"cut","idle":false,"heardText":"x"}`,
			want: voicepath.LineEnd{Seq: 3, Lines: 1, Played: 10 * time.Millisecond, Total: 20 * time.Millisecond, Ending: voicepath.LineCut}},
		{name: "an ending it does not know", in: `{"type":"line_end","seq":3,"ending":"faded"}`,
			want: voicepath.LineEnd{Seq: 3, Ending: voicepath.LineUnknown}},
		{name: "another type", in: `{"type":"line_start","seq":3}`, err: true},
		{name: "played more than the line", in: `{"type":"line_end","seq":3,"playedMs":30,"totalMs":20}`, err: true},
		{name: "a negative seq", in: `{"type":"line_end","seq":-1}`, err: true},
		{name: "a negative version", in: `{"schemaVersion":-1,"type":"line_end","seq":1}`, err: true},
		{name: "not JSON", in: `line_end`, err: true},
	}
	for _, tc := range read {
		t.Run(tc.name, func(t *testing.T) {
			got, err := livekit.ParseLineEnd([]byte(tc.in))
			if tc.err {
				if !errors.Is(err, livekit.ErrInvalidMessage) {
					t.Fatalf("ParseLineEnd(%s) = %+v, %v; want ErrInvalidMessage", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseLineEnd(%s) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
		})
	}
}

// FuzzParseLineEnd: whatever arrives on the speech topic is refused with ErrInvalidMessage or
// read as a line_end within its bounds, which encodes and reads back the same.
func FuzzParseLineEnd(f *testing.F) {
	for _, s := range []string{
		`{"schemaVersion":1,"type":"line_end","seq":12,"lines":1,"playedMs":2310,"totalMs":2310,"ending":"whole","idle":true,"through":12}`,
		`{"type":"line_end","seq":3,"playedMs":1e400}`, `{"type":"line_end","playedMs":-0}`, `{}`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		le, err := livekit.ParseLineEnd(data)
		if err != nil {
			if !errors.Is(err, livekit.ErrInvalidMessage) {
				t.Fatalf("error not ErrInvalidMessage: %v", err)
			}
			return
		}
		if le.Seq < 0 || le.Through < 0 || le.Lines < 0 || le.Played < 0 || le.Total < 0 || le.Played > le.Total+time.Millisecond {
			t.Fatalf("accepted %+v", le)
		}
		again, err := livekit.EncodeLineEnd(le)
		if err != nil {
			t.Fatal(err)
		}
		back, err := livekit.ParseLineEnd(again)
		if err != nil {
			t.Fatalf("re-encoded %s does not read: %v", again, err)
		}
		le.Played, le.Total = le.Played.Truncate(time.Microsecond), le.Total.Truncate(time.Microsecond)
		back.Played, back.Total = back.Played.Truncate(time.Microsecond), back.Total.Truncate(time.Microsecond)
		if back != le {
			t.Fatalf("%+v re-read as %+v", le, back)
		}
	})
}
