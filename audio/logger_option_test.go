package audio

import (
	"errors"
	"log/slog"
	"testing"
)

func TestSetLogger(t *testing.T) {
	def, l := slog.New(slog.DiscardHandler), slog.New(slog.DiscardHandler)
	dst := def
	if err := setLogger(&dst, nil); !errors.Is(err, ErrInvalidConfig) || dst != def {
		t.Fatalf("nil logger: err %v, default kept %v; want ErrInvalidConfig and the default kept", err, dst == def)
	}
	if err := setLogger(&dst, l); err != nil || dst != l {
		t.Fatalf("a logger: err %v, set %v; want it set", err, dst == l)
	}
}
