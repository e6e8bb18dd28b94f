package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/internal/atrest"
	"github.com/examtui/examtui/sessions"
)

func newCandidatesExportCmd() *cobra.Command {
	var out, identity string
	var plain bool
	cmd := &cobra.Command{
		Use:   "export CANDIDATE --out FILE.zip",
		Short: "Everything held about one candidate in one zip archive (subject access)",
		Long: `Write one zip archive of everything the store holds about a candidate — every session of
CANDIDATE, a roster id (examtui candidates import) or a name: the sessions attached to that id
whatever name they carry, and, of the sessions attached to no roster candidate, those under the
roster entry's name (for a name: exactly as sessions list shows it). A session attached to
another candidate is never included, even under the same name. The archive holds the transcript as text and
JSON, the event stream, the examiner's record, the recordings, the marks with their
justifications, and the access log's entries for those sessions. README.txt inside and
docs/records.md say what each file holds. The export is itself recorded in the access log.

Recordings encrypted at rest are decrypted with --identity. When the config file lists
records.recipients the archive is encrypted to them too (FILE.zip.age; age -d -i KEY opens
it); --plain writes it unencrypted, to hand to the candidate.`,
		Example: `  examtui candidates export s-0042 --out ada.zip --identity ~/.config/examtui/records.key --plain
  examtui candidates export "Ada Lovelace" --out ada.zip --identity ~/.config/examtui/records.key --plain`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(out) == "" {
				return fmt.Errorf("--out FILE.zip is required")
			}
			ids, err := atrest.Identities(identity)
			if err != nil {
				return err
			}
			to, err := atrest.Recipients(globals.config.Records.Recipients)
			if err != nil {
				return fmt.Errorf("records.recipients: %w", err)
			}
			if plain {
				to = nil
			}
			if len(to) > 0 && !strings.HasSuffix(out, atrest.Suffix) {
				out += atrest.Suffix
			}
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			var man sessions.SubjectManifest
			// Written through a temporary file and a rename: a failure leaves no half archive.
			err = writeOutput(cmd, out, 0o600, func(w io.Writer) error {
				var enc io.WriteCloser
				if len(to) > 0 {
					e, err := atrest.Encrypt(w, to)
					if err != nil {
						return err
					}
					enc, w = e, e
				}
				m, err := st.WriteSubjectArchive(cmd.Context(), w, args[0], sessions.SubjectOptions{
					Open:          func(p string) (io.ReadCloser, error) { return atrest.Open(p, ids) },
					ExportOptions: sessions.ExportOptions{Version: version, Prices: globals.config.Prices},
				})
				if err != nil {
					return err
				}
				man = m
				if enc != nil {
					return enc.Close()
				}
				return nil
			})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.ErrOrStderr(), "Wrote %s: %d sessions of %s.\n", filepath.Base(out), len(man.Sessions), sessions.OneLine(args[0]))
			return err
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the archive to write (required)")
	cmd.Flags().StringVar(&identity, "identity", "", "age identity file to decrypt recordings encrypted at rest")
	cmd.Flags().BoolVar(&plain, "plain", false, "do not encrypt the archive to records.recipients")
	return cmd
}
