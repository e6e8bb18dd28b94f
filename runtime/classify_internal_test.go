package runtime

import "testing"

func TestClassifyCommand(t *testing.T) {
	tests := []struct {
		text string
		want Command
	}{
		{"Sorry, could you repeat the question?", CmdRepeat},
		{"Can you say that again?", CmdRepeat},
		{"Pardon?", CmdRepeat},
		{"What do you mean by occupancy?", CmdClarification},
		{"Could you clarify what you want?", CmdClarification},
		{"I don't understand the question", CmdClarification},
		{"Could you rephrase that?", CmdRequestRephrase},
		{"Can you put it another way?", CmdRequestRephrase},
		{"Please slow down a bit", CmdSlowDown},
		{"You're speaking too fast", CmdSlowDown},
		{"Can we pause for a moment?", CmdPause},
		{"I need a break", CmdPause},
		{"Hmm, let me think", CmdThinkingAloud},
		{"Give me a second", CmdThinkingAloud},
		{"Help, what am I supposed to do?", CmdHelp},
		{"Can I skip this one?", CmdSkip},
		{"Next question please", CmdSkip},
		{"I'd like to change my answer to the first question", CmdReviseEarlierAnswer},
		{"Can I go back to my previous answer?", CmdReviseEarlierAnswer},
		{"I want to finish the exam now", CmdFinish},
		{"I'm done", CmdFinish},
		// Answers, not commands.
		{"We could open a second buffet line, or another way is a grab-and-go counter.", ""},
		{"I would add two extra people on each lunch shift and adjust the rota.", ""},
		{"Our guests would appreciate help with their luggage, so I would add a porter at the entrance in the morning.", ""},
		{"", ""},
		{"ok", ""},
		// Command phrases inside answers (issue 18): not standalone, not commands.
		{"To save money we should move on to a cheaper supplier.", ""},
		{"I would skip the buffet and serve breakfast at the table.", ""},
		{"We could repeat the survey of guests next month.", ""},
		{"Can we move on to the next question please?", CmdSkip},
		{"I can't cope, I want to stop, please.", CmdFinish}, // distress is the examiner's call: see arbitrateCommand
	}
	for _, tt := range tests {
		got, ok := ClassifyCommand(tt.text)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ClassifyCommand(%q) = %q, %v; want %q", tt.text, got, ok, tt.want)
		}
	}
}

func TestIsAffirmative(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Yes", true},
		{"Yes, I'm sure.", true},
		{"Okay, finish it", true},
		{"No", false},
		{"No, I'm not sure", false},
		{"Wait, let me continue", false},
		{"Hmm", false},
	}
	for _, tt := range tests {
		if got := listenerFor(nil).affirmative(tt.text); got != tt.want {
			t.Errorf("isAffirmative(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
