package headless

import (
	"errors"
	"io/fs"
	"os"

	"github.com/examtui/examtui/examples"
)

// DemoSpec is the spec line that names the built-in demo exam (`examtui run demo`), so a script
// exported from a demo session runs as it is.
const DemoSpec = "demo"

// useDemo points a script whose spec is "demo" at the built-in exam, unless a file of that
// name sits beside the script.
func (s *Script) useDemo() {
	if s.Spec != DemoSpec || s.fsys != nil {
		return
	}
	if _, err := os.Stat(s.specPath); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	s.fsys, s.specPath = examples.FS, examples.DemoSpecName
}
