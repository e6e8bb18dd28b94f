package main

import (
	"fmt"

	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/spf13/cobra"
)

func newLTIKeysCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys list|rotate|retire KID",
		Short: "The tool's signing keys: list them, add a new signing key, retire an old one",
		Long: `The tool signs its Deep Linking responses and service assertions with the newest key in
lti.keysDir (default lti-keys in the data directory) and publishes every key there at
/.well-known/jwks.json. To rotate: "keys rotate" adds a new signing key; once the platforms have
fetched the new keyset (they refetch on an unknown key id), "keys retire -- KID" removes the old
one (a key id can begin with '-'; after "--" it is not read as a flag). examtui serve reads the
directory when it starts.`,
		Args: cobra.NoArgs,
	}
	run := func(f func(kid string) (string, error)) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			kid := ""
			if len(args) > 0 {
				kid = args[0]
			}
			out, err := f(kid)
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), out)
			return nil
		}
	}
	// keys opens the tool's key set where examtui serve reads it.
	keys := func() (*lti.KeySet, error) {
		dir, err := resolveDataDir()
		if err != nil {
			return nil, err
		}
		return ltiKeys(globals.config.LTI, dir)
	}
	cmd.AddCommand(&cobra.Command{Use: "list", Short: "List the published keys, the signing key last", Args: cobra.NoArgs,
		RunE: run(func(string) (string, error) {
			ks, err := keys()
			if err != nil {
				return "", err
			}
			out := ""
			for i, k := range ks.Public().Keys {
				out += k.Kid
				if i == len(ks.Public().Keys)-1 {
					out += "  (signing)"
				}
				out += "\n"
			}
			return out, nil
		})},
		&cobra.Command{Use: "rotate", Short: "Add a new signing key (the older ones stay published)", Args: cobra.NoArgs,
			RunE: run(func(string) (string, error) {
				ks, err := keys()
				if err != nil {
					return "", err
				}
				kid, err := ks.Rotate()
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("new signing key %s; restart examtui serve, and retire the old key once the platforms have its successor\n", kid), nil
			})},
		&cobra.Command{Use: "retire KID", Short: "Remove an old key (never the signing key)", Args: cobra.ExactArgs(1),
			RunE: run(func(kid string) (string, error) {
				ks, err := keys()
				if err != nil {
					return "", err
				}
				if err := ks.Retire(kid); err != nil {
					return "", err
				}
				return "retired " + kid + "\n", nil
			})})
	return cmd
}
