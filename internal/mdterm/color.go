package mdterm

import (
	"io"

	"github.com/charmbracelet/colorprofile"
)

// ColorFor reports whether output written to w may carry ANSI colour, from the
// terminal and env (NO_COLOR, TERM=dumb, CLICOLOR_FORCE, ...); pass os.Environ().
// Our styles use the 16 basic colours, so any profile from ANSI up is enough.
func ColorFor(w io.Writer, env []string) bool {
	return colorprofile.Detect(w, env) >= colorprofile.ANSI
}
