package testutil

import (
	"fmt"

	"github.com/goccy/go-yaml"

	"github.com/examtui/examtui/examples"
)

// RehearsalScript is the example candidate script whose turns the audio tests speak.
const RehearsalScript = "hotel-rehearsal.yaml"

// RehearsalSaid returns the say turns of the example rehearsal script
// (examples/hotel-rehearsal.yaml), in order: the sentences the voice tests synthesise and
// recognise, read from the script so the tests and `examtui test` speak the same words. It
// panics if the embedded script is unreadable, which only a broken checkout can cause.
func RehearsalSaid() []string {
	src, err := examples.FS.ReadFile(RehearsalScript)
	if err != nil {
		panic(fmt.Sprintf("testutil: %s: %v", RehearsalScript, err))
	}
	var script struct {
		Turns []struct {
			Say string `yaml:"say"`
		} `yaml:"turns"`
	}
	if err := yaml.Unmarshal(src, &script); err != nil {
		panic(fmt.Sprintf("testutil: %s: %v", RehearsalScript, err))
	}
	var said []string
	for _, turn := range script.Turns {
		if turn.Say != "" {
			said = append(said, turn.Say)
		}
	}
	if len(said) == 0 {
		panic(fmt.Sprintf("testutil: %s has no say turns", RehearsalScript))
	}
	return said
}
