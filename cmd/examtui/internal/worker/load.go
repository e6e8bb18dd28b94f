package worker

import (
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CPULoad measures this process's share of the machine's CPUs (0..1) between calls, from
// /proc/self/stat: what the worker itself is doing, not what its neighbours on the machine
// do. Calls closer together than a second return the last figure.
type CPULoad struct {
	mu    sync.Mutex
	at    time.Time
	ticks int64
	last  float32
}

// ticksPerSecond is USER_HZ, 100 on Linux.
const ticksPerSecond = 100

// Load is the process's CPU use since the previous call, over all CPUs.
func (c *CPULoad) Load() float32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if !c.at.IsZero() && now.Sub(c.at) < time.Second {
		return c.last
	}
	ticks, ok := processTicks()
	if !ok {
		return 0
	}
	if !c.at.IsZero() {
		busy := float64(ticks-c.ticks) / ticksPerSecond
		share := busy / (now.Sub(c.at).Seconds() * float64(goruntime.NumCPU()))
		c.last = float32(min(max(share, 0), 1))
	}
	c.at, c.ticks = now, ticks
	return c.last
}

func processTicks() (int64, bool) {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:])
	// After the command: state is field 3; utime and stime are fields 14 and 15.
	if len(fields) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(fields[11], 10, 64)
	st, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return u + st, true
}
