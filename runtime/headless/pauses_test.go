package headless

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSplitPauses(t *testing.T) {
	cases := []struct {
		line string
		want []SayPart
		err  bool
	}{
		{line: "Most guests are business travellers.", want: []SayPart{{Text: "Most guests are business travellers."}}},
		{line: "Because [pause 2s] most guests are business travellers.",
			want: []SayPart{{Text: "Because", Pause: 2 * time.Second}, {Text: "most guests are business travellers."}}},
		{line: "Um [pause 800ms] and [pause 1.5s] the buffet.",
			want: []SayPart{{Text: "Um", Pause: 800 * time.Millisecond}, {Text: "and", Pause: 1500 * time.Millisecond}, {Text: "the buffet."}}},
		{line: "So [pause 1s][pause 1s] yes.", want: []SayPart{{Text: "So", Pause: 2 * time.Second}, {Text: "yes."}}},
		{line: "Prices [ 10% ] rose.", want: []SayPart{{Text: "Prices [ 10% ] rose."}}},
		{line: "Because [pause two] most", err: true},
		{line: "Because [pause 0s] most", err: true},
		{line: "Because [pause 61s] most", err: true},
		{line: "[pause 1s] because", err: true},
		{line: "because [pause 1s]", err: true},
	}
	for _, tc := range cases {
		got, err := SplitPauses(tc.line)
		if tc.err {
			if !errors.Is(err, ErrPauseMarker) {
				t.Errorf("%q: err %v, want ErrPauseMarker", tc.line, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, %v; want %+v", tc.line, got, err, tc.want)
		}
	}
	if got := SpokenText("Because [pause 2s] most guests."); got != "Because most guests." {
		t.Errorf("SpokenText = %q", got)
	}
	if got := Pauses("Um [pause 800ms] and [pause 1.5s] the buffet."); got != 2300*time.Millisecond {
		t.Errorf("Pauses = %v", got)
	}
}

func TestScriptRejectsBadPauseMarkers(t *testing.T) {
	src := "spec: x.yaml\nexaminer: offline\nturns:\n  - say: \"Because [pause soon] most\"\n  - say: \"No pause\"\n    cutOff: true\n"
	_, err := ParseScript("bad.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "pause soon") || !strings.Contains(err.Error(), "cutOff applies") {
		t.Fatalf("err = %v", err)
	}
}

func FuzzSplitPauses(f *testing.F) {
	for _, s := range []string{"Because [pause 2s] most", "[pause 1s]", "a [pause 1.5ms] b", "a [pause", "a ] [ b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		parts, err := SplitPauses(line)
		if err != nil {
			return
		}
		var total time.Duration
		for i, p := range parts {
			if strings.TrimSpace(p.Text) == "" || p.Pause < 0 || (i == len(parts)-1 && p.Pause != 0) {
				t.Fatalf("%q: bad part %d %+v", line, i, p)
			}
			total += p.Pause
		}
		if total != Pauses(line) {
			t.Fatalf("%q: Pauses %v, parts %v", line, Pauses(line), total)
		}
	})
}
