package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/sessions"
)

// recordingNotice is the notice candidates see before a microphone opens: the config file's
// records.notice, else sessions.DefaultNotice.
func recordingNotice() string {
	if n := strings.TrimSpace(globals.config.Records.Notice); n != "" {
		return n
	}
	return sessions.DefaultNotice
}

// micNotice says the recording notice in the terminal before run --mic opens the microphone
// and, on a terminal, waits for the candidate to press Enter, which the session records as the
// acknowledgement. Without a terminal there is no one to acknowledge it: it is printed, and
// the session records none.
func micNotice(cmd *cobra.Command, x *app.Exam) error {
	out := cmd.OutOrStdout() // before the console takes the screen
	fmt.Fprintf(out, "Recording notice: %s\n", recordingNotice())
	f, ok := cmd.InOrStdin().(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return nil
	}
	fmt.Fprint(out, "Press Enter to agree and turn on the microphone (ctrl+c stops): ")
	done := make(chan error, 1)
	go func() { // a terminal read cannot be cancelled: it ends with the process at worst
		_, err := bufio.NewReader(f).ReadString('\n')
		done <- err
	}()
	select {
	case <-cmd.Context().Done():
		return cmd.Context().Err()
	case err := <-done:
		if err != nil {
			return fmt.Errorf("the recording notice was not acknowledged: %w", err)
		}
	}
	if x.Store != nil {
		if err := x.Store.SetNoticeAck(cmd.Context(), x.SessionID, time.Now()); err != nil {
			return err
		}
	}
	return nil
}
