// Package atrest encrypts exam records at rest with age (https://age-encryption.org): the
// recordings of the data directory and exported archives are encrypted to the recipients of
// the config file (records.recipients), and read back with an identity file given on the
// command line. The private key is never in the config file, the store or a log.
package atrest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"filippo.io/age"
)

// Suffix ends the name of an encrypted file (sessions.EncryptedSuffix).
const Suffix = ".age"

// Named errors.
var (
	ErrBadRecipient = errors.New("invalid age recipient")
	ErrNoIdentity   = errors.New("the file is encrypted at rest: give the age identity file with --identity")
	ErrBadIdentity  = errors.New("invalid age identity file")
)

// Recipients parses age public keys ("age1..."), naming the one that is wrong.
func Recipients(keys []string) ([]age.Recipient, error) {
	var out []age.Recipient
	for i, k := range keys {
		r, err := age.ParseX25519Recipient(strings.TrimSpace(k))
		if err != nil {
			return nil, fmt.Errorf("%w: recipient %d (%q): %v", ErrBadRecipient, i+1, k, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// Identities reads an age identity file (as age-keygen writes it); "" gives none.
func Identities(path string) ([]age.Identity, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadIdentity, err)
	}
	defer f.Close()
	ids, err := age.ParseIdentities(f)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadIdentity, path, err)
	}
	return ids, nil
}

// EncryptFile encrypts path to path+Suffix (mode 0600) and removes the plaintext, returning the
// new path. On failure the plaintext stays and no partial ciphertext is left.
func EncryptFile(path string, to []age.Recipient) (string, error) {
	in, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer in.Close()
	dst := path + Suffix
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("encrypt %s: %w", filepath.Base(path), err)
	}
	w, err := age.Encrypt(tmp, to...)
	if err != nil {
		return fail(err)
	}
	if _, err := io.Copy(w, in); err != nil {
		return fail(err)
	}
	if err := w.Close(); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		_ = os.Remove(tmp.Name())
		return "", err
	}
	return dst, os.Remove(path)
}

// Encrypt wraps w: what is written is encrypted to the recipients; Close finishes it.
func Encrypt(w io.Writer, to []age.Recipient) (io.WriteCloser, error) { return age.Encrypt(w, to...) }

// Open opens a record for reading: a plain file as it is; an encrypted one (ending in Suffix)
// decrypted with ids, or ErrNoIdentity without any.
func Open(path string, ids []age.Identity) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, Suffix) {
		return f, nil
	}
	if len(ids) == 0 {
		_ = f.Close()
		return nil, ErrNoIdentity
	}
	r, err := age.Decrypt(f, ids...)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("decrypt %s: %w", filepath.Base(path), err)
	}
	return struct {
		io.Reader
		io.Closer
	}{r, f}, nil
}

// DecryptTo writes the plaintext of path to a new private file in dir and returns its path,
// for a player that needs a file; the caller removes it.
func DecryptTo(dir, path string, ids []age.Identity) (string, error) {
	r, err := Open(path, ids)
	if err != nil {
		return "", err
	}
	defer r.Close()
	out, err := os.CreateTemp(dir, "play-*-"+strings.TrimSuffix(filepath.Base(path), Suffix))
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, r); err != nil {
		_ = out.Close()
		_ = os.Remove(out.Name())
		return "", fmt.Errorf("decrypt %s: %w", filepath.Base(path), err)
	}
	return out.Name(), out.Close()
}
