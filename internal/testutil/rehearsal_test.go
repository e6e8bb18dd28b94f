package testutil

import "testing"

func TestRehearsalSaid(t *testing.T) {
	said := RehearsalSaid()
	want := []string{
		"Hello, I'm Priya and I'm on the hospitality management course.",
		"Sorry, could you repeat the question?",
	}
	if len(said) != 6 || said[0] != want[0] || said[1] != want[1] {
		t.Fatalf("RehearsalSaid() = %q, want the six say turns of %s starting %q", said, RehearsalScript, want)
	}
}
