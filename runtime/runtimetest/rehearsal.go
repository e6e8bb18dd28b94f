package runtimetest

// RehearsalAnswers are the candidate's answers in the example rehearsal
// (examples/hotel-rehearsal.yaml) without its request to repeat the question: with the offline
// examiner they take the demo exam (DemoExam) from the welcome to its end. Tests must not
// change it.
var RehearsalAnswers = []string{
	"Hello, I'm Priya and I'm on the hospitality management course.",
	"We could open a second buffet line, or another way is a grab-and-go counter.",
	"Most guests at that time are business travellers who are in a hurry.",
	"I would add two extra people on each lunch shift and adjust the rota.",
	"That raises the labour cost, but the conference revenue pays for it.",
}
