package audio

import (
	"math"
	"math/rand/v2"
)

// AddNoise adds Gaussian white noise at rmsDB dBFS to samples in place, clipping to int16.
// Scripted speech gets a room's noise floor this way, so the adaptive VAD threshold is
// exercised the way a real microphone exercises it; the seed makes it reproducible.
func AddNoise(samples []int16, rmsDB float64, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x6e6f697365))
	amp := math.Pow(10, rmsDB/20) * 32768
	for i, s := range samples {
		samples[i] = clampInt16(float64(s) + r.NormFloat64()*amp)
	}
}
