package lktest

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// udpBindings returns the local addresses (as /proc/net/udp{,6} writes them, hex) of the UDP
// sockets bound to port.
func udpBindings(t *testing.T, port int) []string {
	t.Helper()
	var out []string
	suffix := fmt.Sprintf(":%04X", port)
	for _, f := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) > 1 && strings.HasSuffix(fields[1], suffix) {
				out = append(out, fields[1])
			}
		}
		fh.Close()
	}
	return out
}

// loopbackHex are 127.0.0.1 and ::1 as /proc/net writes them.
var loopbackHex = map[string]bool{"0100007F": true, "00000000000000000000000001000000": true}

// TestMediaIsLoopbackOnly: the test server's UDP media port is bound to loopback addresses
// only, never to every interface (which rtc.node_ip and bind_addresses alone left it on).
func TestMediaIsLoopbackOnly(t *testing.T) {
	s := Start(t)
	got := udpBindings(t, s.rtcUDP)
	if len(got) == 0 {
		t.Fatalf("no UDP socket on the media port %d", s.rtcUDP)
	}
	for _, a := range got {
		if !loopbackHex[strings.Split(a, ":")[0]] {
			t.Errorf("the media port is bound to %s, not loopback (all bindings %v)", a, got)
		}
	}
}
