package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/examtui/examtui/audio"
	"github.com/spf13/cobra"
)

func newDevicesCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List audio input and output devices",
		Long: `devices lists the audio devices PortAudio can use, with their index, channels and default
sample rate. Pass an index or a (part of a) name to --input-device / --output-device of the
commands that use audio; the default devices are marked with *.

On a machine without a sound card there are no devices: point ALSA_CONFIG_PATH at a config
with a default device (testdata/asound-null.conf gives a silent one) or answer by typing.`,
		Example: `  examtui devices
  examtui devices --json | jq '.[] | select(.maxInputChannels > 0)'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			devs, err := audio.ListDevices()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if devs == nil {
					devs = []audio.DeviceInfo{}
				}
				return enc.Encode(devs)
			}
			if len(devs) == 0 {
				fmt.Fprintln(out, "no audio devices (no sound card? see `examtui devices --help`)")
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "INDEX\tNAME\tIN\tOUT\tRATE\tHOST API")
			for _, d := range devs {
				in, outMark := "", ""
				if d.DefaultInput {
					in = "*"
				}
				if d.DefaultOutput {
					outMark = "*"
				}
				fmt.Fprintf(tw, "%d\t%s\t%d%s\t%d%s\t%.0f\t%s\n", d.Index, d.Name, d.MaxInputChannels, in,
					d.MaxOutputChannels, outMark, d.DefaultSampleRate, d.HostAPI)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
