package app

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/examtui/examtui/internal/operator"
	"github.com/examtui/examtui/transport/livekit"
)

// WireCommand is the room message that carries a typed operator command: a control or an
// instruction (an answer is the candidate's, never an examiner's).
func WireCommand(c operator.Command) (livekit.ExaminerCommand, error) {
	switch c.Kind {
	case operator.KindControl:
		return livekit.ExaminerCommand{Kind: livekit.CommandControl, Action: c.Action}, nil
	case operator.KindAdmin:
		return livekit.ExaminerCommand{Kind: livekit.CommandAdmin, Mode: c.Mode, Text: c.Text}, nil
	}
	return livekit.ExaminerCommand{}, fmt.Errorf("%w: a %s cannot be sent to the room", operator.ErrCommand, c.Kind)
}

// SendCommandLines sends each line of r, read with the operator grammar (operator.Commands), to
// the room through s, until r ends or ctx does. Bad lines and failed sends are reported on errw
// and reading goes on.
func SendCommandLines(ctx context.Context, r io.Reader, s livekit.CommandSender, errw io.Writer) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		c, err := operator.Parse(sc.Text(), operator.Commands)
		if err != nil {
			fmt.Fprintf(errw, "%v\n%s\n", err, operator.Help(operator.Commands))
			continue
		}
		if c.Kind == operator.KindNone {
			continue
		}
		wc, err := WireCommand(c)
		if err == nil {
			err = wc.Send(ctx, s)
		}
		if err != nil {
			fmt.Fprintf(errw, "send %s: %v\n", wc.Kind, err)
		}
		if ctx.Err() != nil {
			return
		}
	}
}
