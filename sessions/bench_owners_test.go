package sessions

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkCheckOwners50 is one dead-owner check (what examtui monitor does every 5 s) over 50
// running sessions owned by another handle (another process), on both engines:
//
//	go test -run '^$' -bench BenchmarkCheckOwners50 ./sessions/
func BenchmarkCheckOwners50(b *testing.B) {
	forEachEngineB(b, func(b *testing.B, eng testEngine) {
		ctx := context.Background()
		owner := eng.open(b)
		for i := range 50 {
			createSession(b, owner, Meta{ID: fmt.Sprintf("own-%03d", i), Exam: testExam()})
		}
		monitor := openStore(b, owner.openTarget, WithRecovery(false))
		defer monitor.Close()
		b.ResetTimer()
		for b.Loop() {
			if err := monitor.CheckOwners(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
