package tui

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// keyRow is one line of the README's key table: a binding, where it acts, and a description
// when the binding's own help says less than the table should.
type keyRow struct {
	b     key.Binding
	where string
	desc  string
}

// keyTable renders rows as a Markdown table: the README's key table is the golden file
// TestKeyTableDoc writes, so it cannot drift from the key map.
func keyTable(rows []keyRow) string {
	var b strings.Builder
	b.WriteString("| keys | action | where |\n|---|---|---|\n")
	for _, r := range rows {
		keys := make([]string, 0, len(r.b.Keys()))
		for _, k := range r.b.Keys() {
			keys = append(keys, "`"+k+"`")
		}
		desc := r.b.Help().Desc
		if r.desc != "" {
			desc = r.desc
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", strings.Join(keys, " "), desc, r.where)
	}
	return b.String()
}

func TestKeyTableDoc(t *testing.T) {
	k := DefaultKeyMap()
	scroll := key.NewBinding(key.WithKeys("up", "down", "pgup", "pgdown"))
	rows := []keyRow{
		{k.Send, "input line", ""},
		{scroll, "input line", "scroll the transcript"},
		{k.Follow, "input line", "the transcript follows the newest line again (end also moves the cursor to the line's end)"},
		{k.FocusNext, "anywhere", "next pane (input line, then each pane)"},
		{k.FocusPrev, "anywhere", ""},
		{k.Help, "anywhere", "help overlay (`?` from a pane, or from an empty input line)"},
		{k.Debug, "anywhere", "toggle the Debug view"},
		{k.Graph, "anywhere", "exam graph overlay: path, current node, transitions from here (when the console has the spec)"},
		{k.Quit, "anywhere", "quit (asks while the exam runs)"},
		{k.Pause, "anywhere", ""},
		{k.Skip, "anywhere", "skip the node (admin skip)"},
		{k.Advance, "anywhere", "advance to the next node (admin_advance)"},
		{k.End, "anywhere", "end the exam (asks first)"},
		{k.Instruct, "anywhere", "open the examiner instruction box (guidance for the examiner, never read out)"},
		{k.Say, "anywhere", "open the box as a line to say: spoken to the candidate word for word"},
		{k.SwitchInput, "anywhere", "switch typed/spoken answers (only when the exam can; hidden otherwise)"},
		{k.Promote, "anywhere", "run the oldest queued instruction now, as an immediate one"},
		{k.InstructMode, "instruction box", "switch immediate/queued (from a line to say: back to an instruction; only ctrl+l makes a line to say)"},
		{k.Send, "instruction box", "send the instruction"},
		{k.Back, "instruction box", "cancel"},
		{k.Up, "a focused pane", ""},
		{k.Down, "a focused pane", ""},
		{k.PageUp, "a focused pane", ""},
		{k.PageDown, "a focused pane", ""},
		{k.Top, "a focused pane", ""},
		{k.Bottom, "a focused pane", ""},
		{k.Back, "a focused pane", ""},
		{k.PaneHelp, "a focused pane", ""},
		{k.PaneQuit, "a focused pane", ""},
		{k.Yes, "a confirmation", ""},
		{k.No, "a confirmation", ""},
		{k.ReplayPause, "replay console", ""},
		{k.ReplayFaster, "replay console", ""},
		{k.ReplaySlower, "replay console", ""},
		{k.ReplayStep, "replay console", ""},
	}
	// Every binding of the live and replay help appears in the table.
	var listed []key.Binding
	for _, r := range rows {
		listed = append(listed, r.b)
	}
	for _, g := range append(k.FullHelp(), k.ReplayFullHelp()...) {
		for _, kb := range g {
			found := false
			for _, l := range listed {
				if strings.Join(l.Keys(), " ") == strings.Join(kb.Keys(), " ") && l.Help() == kb.Help() {
					found = true
				}
			}
			if !found {
				t.Errorf("the key table lacks %q (%s)", kb.Help().Desc, kb.Help().Key)
			}
		}
	}
	requireGolden(t, "keys.md", []byte(keyTable(rows)))
}
