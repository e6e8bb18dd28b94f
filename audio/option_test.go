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

func TestSetNonBlank(t *testing.T) {
	dst := "whisper-1"
	for _, blank := range []string{"", " ", "\t\n"} {
		err := setNonBlank(&dst, blank, "STT model")
		if !errors.Is(err, ErrInvalidConfig) || err.Error() != ErrInvalidConfig.Error()+": empty STT model" || dst != "whisper-1" {
			t.Fatalf("blank %q: err %v, dst %q; want ErrInvalidConfig \"empty STT model\" and the default kept", blank, err, dst)
		}
	}
	if err := setNonBlank(&dst, "gpt-4o-transcribe", "STT model"); err != nil || dst != "gpt-4o-transcribe" {
		t.Fatalf("a name: err %v, dst %q; want it set", err, dst)
	}
}
