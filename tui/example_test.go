package tui_test

import (
	"fmt"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/tui"
)

// Screenshot renders the console as plain text, e.g. for the README.
func ExampleScreenshot() {
	var events []runtime.Event // a recorded session, e.g. read from the session store
	shot, err := tui.Screenshot(tui.Info{Title: "Hospitality Management", Examiner: "offline"}, events, 120, 40)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(shot[:len(" Hospitality Management")])
	// Output:  Hospitality Management
}
