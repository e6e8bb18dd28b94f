package audio

import (
	"fmt"
	"math"
)

// Resampler converts a stream of int16 samples between two rates with a polyphase
// windowed-sinc (Kaiser) low-pass filter. The rate ratio is reduced to L/M, one filter is
// precomputed per output phase, and the cutoff sits below the lower of the two Nyquist
// frequencies, so downsampling 48 kHz → 16 kHz does not fold 8–24 kHz content back into speech.
//
// It keeps the history it needs between calls: feeding a signal in pieces gives the same output
// as feeding it at once. It is not safe for concurrent use.
type Resampler struct {
	inRate, outRate int
	up, down        int64     // out/in = up/down, reduced
	half            int       // taps on each side of the centre
	phases          []float64 // up × 2·half coefficients, phase-major
	hist            []float64 // input not yet consumed; hist[0] is input index histBase
	histBase        int64
	next            int64 // next output sample index
}

const (
	resampleZeroCrossings = 16  // filter half-length in zero crossings of the cutoff sinc
	resampleKaiserBeta    = 8.6 // about 80 dB stop band
	resampleRolloff       = 0.92
)

// NewResampler returns a resampler from inRate to outRate (Hz, 1000..768000).
func NewResampler(inRate, outRate int) (*Resampler, error) {
	if inRate < 1000 || inRate > 768000 || outRate < 1000 || outRate > 768000 {
		return nil, fmt.Errorf("%w: resample %d Hz → %d Hz", ErrInvalidConfig, inRate, outRate)
	}
	g := gcd(inRate, outRate)
	r := &Resampler{inRate: inRate, outRate: outRate, up: int64(outRate / g), down: int64(inRate / g)}
	if r.up > 4096 {
		return nil, fmt.Errorf("%w: rate ratio %d/%d needs too many filter phases", ErrInvalidConfig, outRate, inRate)
	}
	cutoff := resampleRolloff * math.Min(1, float64(outRate)/float64(inRate)) // relative to input Nyquist
	r.half = int(math.Ceil(resampleZeroCrossings / cutoff))
	taps := 2 * r.half
	r.phases = make([]float64, int(r.up)*taps)
	i0 := besselI0(resampleKaiserBeta)
	for p := range int(r.up) {
		frac := float64(p) / float64(r.up) // output position lies frac input samples after the base tap
		coeffs := r.phases[p*taps : (p+1)*taps]
		var sum float64
		for j := range taps {
			d := float64(j-r.half+1) - frac // distance from the output position, in input samples
			x := d / float64(r.half)
			w := 0.0
			if x > -1 && x < 1 {
				w = besselI0(resampleKaiserBeta*math.Sqrt(1-x*x)) / i0
			}
			c := cutoff * sinc(cutoff*d) * w
			coeffs[j] = c
			sum += c
		}
		for j := range coeffs { // unity gain at DC for every phase: no ripple on steady signals
			coeffs[j] /= sum
		}
	}
	// Start with half a filter of silence so the first output sample is centred on input 0.
	r.hist = make([]float64, r.half-1, 4096)
	r.histBase = -int64(r.half - 1)
	return r, nil
}

// Process appends the resampled form of in to out and returns it.
func (r *Resampler) Process(in []int16, out []int16) []int16 {
	for _, s := range in {
		r.hist = append(r.hist, float64(s))
	}
	return r.drain(out)
}

// Flush pushes the last samples out by feeding half a filter of silence, and resets the
// stream position; call it once at the end of a stream.
func (r *Resampler) Flush(out []int16) []int16 {
	r.hist = append(r.hist, make([]float64, r.half+1)...)
	out = r.drain(out)
	return out
}

func (r *Resampler) drain(out []int16) []int16 {
	taps := 2 * r.half
	end := r.histBase + int64(len(r.hist)) // one past the last input index held
	for {
		num := r.next * r.down
		base := num / r.up // input index at or before the output position
		phase := num % r.up
		first := base - int64(r.half) + 1
		if base+int64(r.half) >= end {
			break
		}
		coeffs := r.phases[int(phase)*taps : int(phase+1)*taps]
		x := r.hist[first-r.histBase : first-r.histBase+int64(taps)]
		var acc float64
		for j, c := range coeffs {
			acc += c * x[j]
		}
		out = append(out, clampInt16(acc))
		r.next++
	}
	// Drop history no future output needs.
	num := r.next * r.down
	keepFrom := num/r.up - int64(r.half) + 1
	if drop := keepFrom - r.histBase; drop > 0 {
		n := copy(r.hist, r.hist[drop:])
		r.hist = r.hist[:n]
		r.histBase = keepFrom
	}
	return out
}

// Resample converts a whole signal from inRate to outRate.
func Resample(in []int16, inRate, outRate int) ([]int16, error) {
	if inRate == outRate {
		return append([]int16(nil), in...), nil
	}
	r, err := NewResampler(inRate, outRate)
	if err != nil {
		return nil, err
	}
	want := int(int64(len(in)) * int64(outRate) / int64(inRate))
	out := r.Process(in, make([]int16, 0, want+8))
	out = r.Flush(out)
	if len(out) > want {
		out = out[:want]
	}
	return out, nil
}

func clampInt16(v float64) int16 {
	v = math.Round(v)
	if v > math.MaxInt16 {
		return math.MaxInt16
	}
	if v < math.MinInt16 {
		return math.MinInt16
	}
	return int16(v)
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// besselI0 is the zeroth-order modified Bessel function of the first kind (series form).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 50; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
		if term < 1e-12*sum {
			break
		}
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
