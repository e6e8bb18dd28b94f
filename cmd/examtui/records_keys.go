package main

import (
	"os"

	"github.com/examtui/examtui/internal/atrest"
	"github.com/examtui/examtui/tui/markconsole"
)

// playDecrypter gives the marking console playable copies of recordings encrypted at rest,
// decrypted with the identity file (none: an encrypted recording is a clear error). Each copy
// lives in a private temporary folder removed after playing.
func playDecrypter(identityFile string) (markconsole.DecryptFunc, error) {
	ids, err := atrest.Identities(identityFile)
	if err != nil {
		return nil, err
	}
	return func(path string) (string, func(), error) {
		dir, err := os.MkdirTemp("", "examtui-play-")
		if err != nil {
			return "", nil, err
		}
		remove := func() { _ = os.RemoveAll(dir) }
		plain, err := atrest.DecryptTo(dir, path, ids)
		if err != nil {
			remove()
			return "", nil, err
		}
		return plain, remove, nil
	}, nil
}
