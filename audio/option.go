package audio

import (
	"fmt"
	"log/slog"
	"strings"
)

// What the functional options of the package's constructors share.

// setLogger is what every With…Logger option of the package does: a nil logger is a
// configuration error, anything else replaces the default (discard) logger.
func setLogger(dst **slog.Logger, l *slog.Logger) error {
	if l == nil {
		return fmt.Errorf("%w: nil logger", ErrInvalidConfig)
	}
	*dst = l
	return nil
}

// setNonBlank is what the options naming a provider's model or voice do: a blank name is a
// configuration error ("empty <what>"), anything else is kept as given.
func setNonBlank(dst *string, v, what string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("%w: empty %s", ErrInvalidConfig, what)
	}
	*dst = v
	return nil
}
