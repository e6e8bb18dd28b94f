package app

import (
	"bufio"
	"errors"
	"io"
)

// MaxInputLine is the longest stdin line headless input accepts: far more than any answer or
// command, small enough that a runaway producer cannot exhaust memory.
const MaxInputLine = 1 << 20

// inputLine is one stdin line, or (tooLong > 0) the size of a line that was skipped.
type inputLine struct {
	text    string
	tooLong int
}

// readLines calls fn for each line of r (without its line ending). A line longer than max
// bytes is not kept: fn gets its size instead, and reading goes on with the next line. It
// returns nil at EOF, or when fn returns false.
func readLines(r io.Reader, max int, fn func(inputLine) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	size, over := 0, false
	for {
		part, isPrefix, err := br.ReadLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		size += len(part)
		if !over && size > max {
			over, buf = true, nil
		}
		if !over {
			buf = append(buf, part...)
		}
		if isPrefix {
			continue
		}
		line := inputLine{text: string(buf)}
		if over {
			line = inputLine{tooLong: size}
		}
		if !fn(line) {
			return nil
		}
		buf, size, over = buf[:0], 0, false
	}
}
