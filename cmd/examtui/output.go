package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// writeOutput writes to standard output when path is "" or "-" (an --output flag not given),
// else to path through writeFileAtomic with perm.
func writeOutput(cmd *cobra.Command, path string, perm os.FileMode, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		return write(cmd.OutOrStdout())
	}
	return writeFileAtomic(path, perm, write)
}

// writeBytes is a write function for writeOutput that writes b.
func writeBytes(b []byte) func(io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(b); return err }
}

// writeFileAtomic writes path with perm through a temporary file and a rename, so a reader
// never sees half an export and a failed write leaves the old file (or none) in place.
func writeFileAtomic(path string, perm os.FileMode, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
