package atrest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"filippo.io/age"
)

// TestEncryptFileRoundTrip: a recording encrypted at rest holds none of its plaintext, reads
// back with the identity, and without one (or with another) is a clear error.
func TestEncryptFileRoundTrip(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	stranger, _ := age.GenerateX25519Identity()
	to, err := Recipients([]string{id.Recipient().String()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "candidate.wav")
	want := bytes.Repeat([]byte("RIFF the candidate's voice "), 1000)
	if err := os.WriteFile(plain, want, 0o600); err != nil {
		t.Fatal(err)
	}
	enc, err := EncryptFile(plain, to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(plain); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the plaintext stayed: %v", err)
	}
	raw, _ := os.ReadFile(enc)
	if bytes.Contains(raw, []byte("candidate's voice")) {
		t.Error("the encrypted file holds the plaintext")
	}
	keyFile := filepath.Join(dir, "key.txt")
	if err := os.WriteFile(keyFile, []byte("# test key\n"+id.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ids, err := Identities(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(enc, ids)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	_ = r.Close()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("decrypted %d bytes, %v; want %d", len(got), err, len(want))
	}
	if _, err := Open(enc, nil); !errors.Is(err, ErrNoIdentity) {
		t.Errorf("open without an identity: %v, want ErrNoIdentity", err)
	}
	if _, err := Open(enc, []age.Identity{stranger}); err == nil {
		t.Error("another identity decrypted the recording")
	}
	if _, err := Recipients([]string{"age1notakey"}); !errors.Is(err, ErrBadRecipient) {
		t.Errorf("bad recipient: %v", err)
	}
	if _, err := Identities(filepath.Join(dir, "missing.txt")); !errors.Is(err, ErrBadIdentity) {
		t.Errorf("missing identity file: %v", err)
	}
	played, err := DecryptTo(dir, enc, ids)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(played); !bytes.Equal(b, want) {
		t.Error("DecryptTo wrote something else")
	}
}
