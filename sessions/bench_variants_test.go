package sessions

import (
	"context"
	"testing"

	"github.com/examtui/examtui/internal/pgtest"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/offline"
)

// BenchmarkBalancedDrawPostgres measures what a balanced draw adds to entering a node on a
// PostgreSQL store holding 10,000 sessions of the exam (each with its node_entered and its
// draw counted): entering the variant node with the store counting draws (balanced) against
// the same entry drawn from the seed alone (seeded). The bound is 5 ms.
func BenchmarkBalancedDrawPostgres(b *testing.B) {
	ctx := context.Background()
	st := openStore(b, pgtest.NewDB(b))
	b.Cleanup(func() { _ = st.Close() })
	exam, err := variantScript(b).CompileSpec()
	if err != nil {
		b.Fatal(err)
	}
	// 10,000 stored sessions of the exam, each with a node_entered naming its variant, and the
	// draws they made.
	for _, q := range []string{
		`INSERT INTO sessions (id, exam_id, title, started_ns, ended_ns, state, exam_sha256)
			SELECT 'bench-' || i, 'variants', 'Variant draw test exam', i, i + 1, 'completed', 'x' FROM generate_series(1, 10000) AS i`,
		`INSERT INTO events (session_id, seq, type, ts_ns, payload)
			SELECT 'bench-' || i, 1, 'node_entered', i,
				convert_to('{"nodeId":"case","kind":"assessment","variant":"' || (ARRAY['breakfast','spa','parking'])[1 + i % 3] || '","variantDraw":"balanced"}', 'UTF8')
			FROM generate_series(1, 10000) AS i`,
		`INSERT INTO variant_draws (exam_id, node_id, variant_id, draws) VALUES
			('variants', 'case', 'breakfast', 3334), ('variants', 'case', 'spa', 3333), ('variants', 'case', 'parking', 3333)`,
	} {
		if _, err := st.db.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	ex, err := offline.New()
	if err != nil {
		b.Fatal(err)
	}
	enter := func(b *testing.B, opts ...runtime.Option) {
		for b.Loop() {
			c, err := runtime.NewController(exam, ex, opts...)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Start(ctx); err != nil {
				b.Fatal(err)
			}
			if v := c.Snapshot().Variant; v == "" {
				b.Fatal("no variant drawn")
			}
			_ = c.Close()
		}
	}
	b.Run("seeded", func(b *testing.B) { enter(b) })
	b.Run("balanced", func(b *testing.B) { enter(b, runtime.WithVariantCounter(st)) })
}
