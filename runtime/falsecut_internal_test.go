package runtime

import "testing"

func TestRestFromCut(t *testing.T) {
	line := "Thank you. Nothing was tested before the move. What would you test first?"
	for _, tc := range []struct{ heard, want string }{
		{"", line},
		{"Thank", line},
		{"Thank you.", "Nothing was tested before the move. What would you test first?"},
		{"Thank you. Nothing was", "Nothing was tested before the move. What would you test first?"},
		{"Thank you. Nothing was tested before the move. What would", "What would you test first?"},
		{line, ""},
		{"Something else entirely", line}, // not the line's start: say it all again
	} {
		if got := restFromCut(line, tc.heard); got != tc.want {
			t.Errorf("restFromCut(heard %q) = %q, want %q", tc.heard, got, tc.want)
		}
	}
}

func TestOnlyBackchannel(t *testing.T) {
	v := EnglishVocabulary()
	for text, want := range map[string]bool{
		"Mm-hmm.": true, "yeah": true, "Okay, right.": true, "Uh-huh, I see.": true, "": true,
		"Sorry, can you repeat that?": false, "Wait.": false, "Yeah, we could open a second line.": false,
	} {
		if got := v.onlyBackchannel(text); got != want {
			t.Errorf("onlyBackchannel(%q) = %v, want %v", text, got, want)
		}
	}
}
