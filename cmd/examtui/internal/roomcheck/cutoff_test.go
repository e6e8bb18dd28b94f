package roomcheck

import (
	"testing"
	"time"
)

// TestCutOffs: the examiner took the turn in a pause of the candidate's line when its voice is
// heard beginning inside the pause or, when none is heard there, when one of its lines (a
// spoken event) reaches the candidate after the pause began and before the line ended. Under
// stress-ng the bot ended the turn at a 2 s pause and began its reply, and its starved track had
// sent 3 ms of it when the rest of the line cut it: nothing was heard in the pause, and the old
// check (the voice only) reported no cut-off.
func TestCutOffs(t *testing.T) {
	base := time.Now()
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	// A line said from 0: 1 s of speech, a 2 s pause, 1.5 s more; it ends at 4500 ms.
	pauses := []pauseSpan{{from: time.Second, to: 3 * time.Second}}
	cases := []struct {
		name   string
		voice  [][2]int // the examiner's voiced stretches, ms
		spoken []int    // spoken events received, ms
		want   []int    // cut-offs: when the examiner took the turn, ms
	}{
		{name: "the examiner heard in the pause", voice: [][2]int{{1800, 2600}}, spoken: []int{1700}, want: []int{1800}},
		{name: "its line arrived in the pause, its voice too late to hear", spoken: []int{1700}, want: []int{1700}},
		{name: "its line arrived after the pause, before the line ended", spoken: []int{3400}, want: []int{3400}},
		{name: "a reply after the line ended", voice: [][2]int{{4900, 6000}}, spoken: []int{4800}},
		{name: "a line before the pause (the previous reply's)", spoken: []int{500}},
		{name: "no examiner at all"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := &room{listener: newListener()}
			for _, v := range tc.voice {
				speakAt(rt.listener, at(v[0]), at(v[1]), true)
			}
			for _, s := range tc.spoken {
				rt.spoken = append(rt.spoken, spokenAt{at: at(s), text: "line"})
			}
			p := &player{rt: rt, started: base}
			got := p.cutOffs(base, pauses, at(4500))
			if len(got) != len(tc.want) {
				t.Fatalf("cut-offs %+v, want at %v ms", got, tc.want)
			}
			for i, c := range got {
				if !c.at.Equal(at(tc.want[i])) || c.PauseAtMs != 1000 || c.PauseMs != 2000 || c.ExaminerAtMs != float64(tc.want[i]) {
					t.Errorf("cut-off %+v, want the examiner at %d ms in the pause at 1000 ms", c, tc.want[i])
				}
			}
		})
	}
}
