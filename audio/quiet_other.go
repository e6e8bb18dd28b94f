//go:build !linux

package audio

func quietAudioLibs() {}
