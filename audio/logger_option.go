package audio

import (
	"fmt"
	"log/slog"
)

// setLogger is what every With…Logger option of the package does: a nil logger is a
// configuration error, anything else replaces the default (discard) logger.
func setLogger(dst **slog.Logger, l *slog.Logger) error {
	if l == nil {
		return fmt.Errorf("%w: nil logger", ErrInvalidConfig)
	}
	*dst = l
	return nil
}
