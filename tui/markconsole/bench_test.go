package markconsole_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/examtui/examtui/tui/markconsole"
)

// BenchmarkFrame renders one frame (120×40, colour) of the rehearsal's sheet with its
// transcript grown to a two-hour session's (1,600 turns), after a key that moves to the next
// evidence: what a marker waits for on each key press. Target: under 5 ms.
//
//	go test ./tui/markconsole -run '^$' -bench BenchmarkFrame -benchmem
func BenchmarkFrame(b *testing.B) {
	st := openStore(b)
	recordRehearsal(b, st, fixtureID, fixtureStart)
	be, err := markconsole.NewStoreBackend(st, "ana", "", nil, "")
	if err != nil {
		b.Fatal(err)
	}
	sheet, err := be.Load(context.Background(), fixtureID)
	if err != nil {
		b.Fatal(err)
	}
	base := sheet.Lines
	for i := len(base); len(sheet.Lines) < 1600; i++ {
		l := base[i%len(base)]
		l.SegmentID = fmt.Sprintf("seg-%04d", i+1)
		l.At = l.At.Add(time.Duration(i) * 4500 * time.Millisecond)
		sheet.Lines = append(sheet.Lines, l)
	}
	m, err := markconsole.New(be, fixtureID, markconsole.WithNoColor(false))
	if err != nil {
		b.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.SetSheet(sheet)
	m.Render()
	keys := []tea.KeyPressMsg{keyMsg("tab"), keyMsg("down"), keyMsg("right")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		m.Update(keys[i%len(keys)])
		_ = m.Render()
	}
}
