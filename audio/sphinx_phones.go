package audio

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// espeakToARPAbet maps espeak-ng's English phoneme mnemonics (`espeak-ng -x`) to the
// ARPAbet phones of the pocketsphinx en-us model, so a word missing from the dictionary (a
// candidate's name) can still be put in a grammar. Longest match first; stress and length
// marks are dropped.
var espeakToARPAbet = map[string]string{
	"aI@": "AY ER", "aU@": "AW ER", "i@3": "IH R", "A@": "AA R", "e@": "EH R", "i@": "IH R", "O@": "AO R", "U@": "UH R",
	"aI": "AY", "aU": "AW", "eI": "EY", "oU": "OW", "OI": "OY", "A:": "AA", "i:": "IY", "u:": "UW", "O:": "AO",
	"3:": "ER", "@L": "AH L", "@5": "AH L", "tS": "CH", "dZ": "JH", "a#": "AE", "I#": "IH", "I2": "IH", "@2": "AH",
	"a": "AE", "A": "AA", "e": "EH", "E": "EH", "I": "IH", "i": "IY", "0": "AA", "O": "AO", "V": "AH", "U": "UH",
	"u": "UW", "@": "AH", "3": "ER", "o": "OW",
	"p": "P", "b": "B", "t": "T", "d": "D", "k": "K", "g": "G", "f": "F", "v": "V", "s": "S", "z": "Z",
	"h": "HH", "m": "M", "n": "N", "N": "NG", "l": "L", "r": "R", "w": "W", "j": "Y", "T": "TH", "D": "DH",
	"S": "SH", "Z": "ZH", "x": "K", "t#": "T", "d#": "D", "n-": "N", "l-": "L", "r-": "R", "?": "T",
}

// pronounce asks espeak-ng for a word's phonemes and maps them to ARPAbet.
func pronounce(ctx context.Context, word string) (string, error) {
	out, err := exec.CommandContext(ctx, "espeak-ng", "-v", "en-us", "-q", "-x", word).Output()
	if err != nil {
		return "", fmt.Errorf("espeak-ng phonemes of %q: %w", word, err)
	}
	return espeakPhonesToARPAbet(strings.TrimSpace(string(out)))
}

func espeakPhonesToARPAbet(ph string) (string, error) {
	ph = strings.NewReplacer("'", "", ",", "", "%", "", "=", "", "_", "", ":#", ":", " ", "").Replace(ph)
	var out []string
	for len(ph) > 0 {
		matched := false
		for n := min(3, len(ph)); n > 0; n-- {
			if a, ok := espeakToARPAbet[ph[:n]]; ok {
				out = append(out, a)
				ph = ph[n:]
				matched = true
				break
			}
		}
		if !matched {
			if ph[0] == ':' || ph[0] == '#' || ph[0] == '2' || ph[0] == '-' { // length / variant marks
				ph = ph[1:]
				continue
			}
			return "", fmt.Errorf("no ARPAbet phone for espeak-ng phoneme %q", ph)
		}
	}
	if len(out) == 0 {
		return "", fmt.Errorf("no phonemes")
	}
	return strings.Join(out, " "), nil
}
