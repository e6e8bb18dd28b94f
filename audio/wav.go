package audio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"
)

const (
	wavFormatPCM        = 1
	wavFormatFloat      = 3
	wavFormatExtensible = 0xFFFE
	// maxWAVBytes bounds what ReadWAV will hold in memory (about 70 minutes of 16-bit 48 kHz
	// stereo), so a corrupt size field cannot make us allocate gigabytes.
	maxWAVBytes = 1 << 30
)

// ReadWAVFile reads a WAV file into a mono clip (channels are averaged).
func ReadWAVFile(path string) (Clip, error) {
	f, err := os.Open(path)
	if err != nil {
		return Clip{}, fmt.Errorf("open WAV: %w", err)
	}
	defer f.Close()
	c, err := ReadWAV(f)
	if err != nil {
		return Clip{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ReadWAV parses RIFF/WAVE PCM (8, 16, 24, 32 bit), IEEE float (32, 64 bit) and
// WAVE_FORMAT_EXTENSIBLE data into a mono int16 clip. A data chunk whose size is unknown
// (0, or larger than the stream, as written by streaming encoders such as espeak-ng --stdout)
// is read to the end of the stream.
func ReadWAV(r io.Reader) (Clip, error) {
	return StreamWAV(r, nil)
}

// StreamWAV reads a WAV stream as ReadWAV does, handing each run of samples to part (when not
// nil) as it arrives, so a speech response can play from its first bytes; it returns the whole
// clip. A run is whatever the stream had to give, at least wavRun of audio unless the stream
// ended.
func StreamWAV(r io.Reader, part func(Clip)) (Clip, error) {
	br := bufio.NewReader(r)
	w, limit, err := readWAVHeader(br)
	if err != nil {
		return Clip{}, err
	}
	frameBytes := w.width * w.channels
	minRun := max(frameBytes, w.rate*frameBytes*int(wavRun/time.Millisecond)/1000)
	var out []int16
	buf := make([]byte, 0, 2*minRun)
	flush := func() {
		n := len(buf) / frameBytes
		if n == 0 {
			return
		}
		from := len(out)
		out = w.decode(out, buf[:n*frameBytes])
		buf = append(buf[:0], buf[n*frameBytes:]...)
		if part != nil {
			part(Clip{Samples: out[from:len(out):len(out)], Rate: w.rate})
		}
	}
	lr := io.LimitReader(br, limit)
	chunk := make([]byte, 32*1024)
	for {
		n, err := lr.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if len(buf) >= minRun {
			flush()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Clip{}, fmt.Errorf("%w: reading data: %w", ErrInvalidWAV, err)
		}
	}
	flush()
	return Clip{Samples: out, Rate: w.rate}, nil
}

// wavRun is the least audio StreamWAV hands over at once (the stream's end aside).
const wavRun = 20 * time.Millisecond

// wavFormat is what a WAV header says of its samples.
type wavFormat struct {
	channels, rate, width int
	conv                  func([]byte) float64
}

// decode appends the mono samples of whole frames in data to out.
func (w wavFormat) decode(out []int16, data []byte) []int16 {
	frameBytes := w.width * w.channels
	for base := 0; base+frameBytes <= len(data); base += frameBytes {
		var sum float64
		for c := range w.channels {
			sum += w.conv(data[base+c*w.width : base+(c+1)*w.width])
		}
		out = append(out, floatToInt16(sum/float64(w.channels)))
	}
	return out
}

// readWAVHeader reads up to the data chunk and returns the format and how many bytes of data
// to read (maxWAVBytes when the size is unknown or larger).
func readWAVHeader(br *bufio.Reader) (wavFormat, int64, error) {
	var hdr [12]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return wavFormat{}, 0, fmt.Errorf("%w: short RIFF header: %w", ErrInvalidWAV, err)
	}
	if string(hdr[0:4]) != "RIFF" || string(hdr[8:12]) != "WAVE" {
		return wavFormat{}, 0, fmt.Errorf("%w: not a RIFF/WAVE stream", ErrInvalidWAV)
	}
	var (
		haveFmt       bool
		chunk         [8]byte
		fmtBuf        []byte
		dataRemaining int64
	)
	for {
		if _, err := io.ReadFull(br, chunk[:]); err != nil {
			return wavFormat{}, 0, fmt.Errorf("%w: no data chunk: %w", ErrInvalidWAV, err)
		}
		id := string(chunk[0:4])
		size := int64(binary.LittleEndian.Uint32(chunk[4:8]))
		if id == "data" {
			dataRemaining = size
			break
		}
		if size > 1<<20 {
			return wavFormat{}, 0, fmt.Errorf("%w: %q chunk of %d bytes", ErrInvalidWAV, id, size)
		}
		body := make([]byte, size+size%2) // chunks are word aligned
		if _, err := io.ReadFull(br, body); err != nil {
			return wavFormat{}, 0, fmt.Errorf("%w: truncated %q chunk: %w", ErrInvalidWAV, id, err)
		}
		if id == "fmt " {
			fmtBuf = body[:size]
			haveFmt = true
		}
	}
	if !haveFmt || len(fmtBuf) < 16 {
		return wavFormat{}, 0, fmt.Errorf("%w: missing fmt chunk before data", ErrInvalidWAV)
	}
	format := binary.LittleEndian.Uint16(fmtBuf[0:2])
	channels := int(binary.LittleEndian.Uint16(fmtBuf[2:4]))
	rate := int(binary.LittleEndian.Uint32(fmtBuf[4:8]))
	bits := int(binary.LittleEndian.Uint16(fmtBuf[14:16]))
	if format == wavFormatExtensible {
		if len(fmtBuf) < 26 {
			return wavFormat{}, 0, fmt.Errorf("%w: short WAVE_FORMAT_EXTENSIBLE fmt chunk", ErrInvalidWAV)
		}
		format = binary.LittleEndian.Uint16(fmtBuf[24:26]) // first two bytes of the sub-format GUID
	}
	if channels < 1 || channels > 32 {
		return wavFormat{}, 0, fmt.Errorf("%w: %d channels", ErrInvalidWAV, channels)
	}
	if rate < 1000 || rate > 768000 {
		return wavFormat{}, 0, fmt.Errorf("%w: sample rate %d", ErrInvalidWAV, rate)
	}
	conv, err := sampleDecoder(format, bits)
	if err != nil {
		return wavFormat{}, 0, err
	}
	limit := dataRemaining
	if limit == 0 || limit > maxWAVBytes {
		limit = maxWAVBytes
	}
	return wavFormat{channels: channels, rate: rate, width: bits / 8, conv: conv}, limit, nil
}

// sampleDecoder returns a function mapping one encoded sample to -1..1.
func sampleDecoder(format uint16, bits int) (func([]byte) float64, error) {
	switch {
	case format == wavFormatPCM && bits == 8:
		return func(b []byte) float64 { return (float64(b[0]) - 128) / 128 }, nil
	case format == wavFormatPCM && bits == 16:
		return func(b []byte) float64 { return float64(int16(binary.LittleEndian.Uint16(b))) / 32768 }, nil
	case format == wavFormatPCM && bits == 24:
		return func(b []byte) float64 {
			v := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
			return float64(v) / (1 << 23)
		}, nil
	case format == wavFormatPCM && bits == 32:
		return func(b []byte) float64 { return float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31) }, nil
	case format == wavFormatFloat && bits == 32:
		return func(b []byte) float64 {
			return sanitize(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
		}, nil
	case format == wavFormatFloat && bits == 64:
		return func(b []byte) float64 { return sanitize(math.Float64frombits(binary.LittleEndian.Uint64(b))) }, nil
	}
	return nil, fmt.Errorf("%w: WAV format %d with %d bits per sample", ErrUnsupportedFormat, format, bits)
}

func sanitize(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func floatToInt16(v float64) int16 {
	v = math.Round(v * 32768)
	if v > math.MaxInt16 {
		return math.MaxInt16
	}
	if v < math.MinInt16 {
		return math.MinInt16
	}
	return int16(v)
}

// WriteWAV writes samples as a 16-bit mono PCM WAV file.
func WriteWAV(w io.Writer, samples []int16, rate int) error {
	if rate <= 0 {
		return fmt.Errorf("%w: sample rate %d", ErrInvalidConfig, rate)
	}
	bw := bufio.NewWriter(w)
	if _, err := bw.Write(wavHeader(rate, int64(len(samples))*2)); err != nil {
		return fmt.Errorf("write WAV header: %w", err)
	}
	if err := writeSamples(bw, samples); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write WAV: %w", err)
	}
	return nil
}

// WriteWAVFile writes a clip to path.
func WriteWAVFile(path string, c Clip) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create WAV: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close WAV: %w", cerr)
		}
	}()
	return WriteWAV(f, c.Samples, c.Rate)
}

func writeSamples(w io.Writer, samples []int16) error {
	buf := make([]byte, 2*min(len(samples), 4096))
	for len(samples) > 0 {
		n := min(len(samples), len(buf)/2)
		for i := range n {
			binary.LittleEndian.PutUint16(buf[2*i:], uint16(samples[i]))
		}
		if _, err := w.Write(buf[:2*n]); err != nil {
			return fmt.Errorf("write WAV samples: %w", err)
		}
		samples = samples[n:]
	}
	return nil
}

func wavHeader(rate int, dataBytes int64) []byte {
	h := make([]byte, 44)
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(min(36+dataBytes, math.MaxUint32)))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], wavFormatPCM)
	binary.LittleEndian.PutUint16(h[22:], 1)
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*2))
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(min(dataBytes, math.MaxUint32)))
	return h
}

// wavFileWriter streams 16-bit mono samples to a file and fixes the sizes in the header on Close,
// so a long session never sits in memory.
type wavFileWriter struct {
	f       *os.File
	bw      *bufio.Writer
	rate    int
	samples int64
	synced  int64 // samples the file's header counts (sync)
}

func createWAVWriter(path string, rate int) (*wavFileWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create WAV: %w", err)
	}
	w := &wavFileWriter{f: f, bw: bufio.NewWriterSize(f, 64<<10), rate: rate}
	if _, err := w.bw.Write(wavHeader(rate, 0)); err != nil {
		f.Close()
		return nil, fmt.Errorf("write WAV header: %w", err)
	}
	return w, nil
}

func (w *wavFileWriter) write(samples []int16) error {
	if err := writeSamples(w.bw, samples); err != nil {
		return err
	}
	w.samples += int64(len(samples))
	if w.samples-w.synced >= int64(w.rate) {
		return w.sync()
	}
	return nil
}

// sync writes out what is buffered and makes the header count it, after every second of
// audio: a process killed before close (SIGKILL, a power cut) leaves a file every tool reads
// whole up to the last second, rather than one whose header says it is empty.
func (w *wavFileWriter) sync() error {
	if err := w.bw.Flush(); err != nil {
		return err
	}
	if _, err := w.f.WriteAt(wavHeader(w.rate, w.samples*2), 0); err != nil {
		return err
	}
	w.synced = w.samples
	return nil
}

func (w *wavFileWriter) writeSilence(n int64) error {
	var zero [1024]int16
	for n > 0 {
		k := min(n, int64(len(zero)))
		if err := w.write(zero[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

func (w *wavFileWriter) close() error {
	return errors.Join(w.sync(), w.f.Close())
}
