package httpserve

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Limits bound what one server accepts. docs/operations.md lists the defaults.
type Limits struct {
	ReadHeaderTimeout time.Duration // the request line and headers
	ReadTimeout       time.Duration // the whole request, body included
	WriteTimeout      time.Duration // from the end of the headers to the end of the reply
	IdleTimeout       time.Duration // a kept-alive connection between requests
	MaxHeaderBytes    int
	MaxBodyBytes      int64 // every request body; a handler may set a smaller cap of its own
	MaxConns          int   // concurrent connections to the server
	MaxConnsPerAddr   int   // concurrent connections from one client address
	RetryAfter        time.Duration

	tls *tls.Config // WithTLS: set after the caps, so the caps count TCP connections
}

// Defaults are the limits of every server unless an option changes one.
var Defaults = Limits{
	ReadHeaderTimeout: 5 * time.Second,
	ReadTimeout:       30 * time.Second,
	WriteTimeout:      60 * time.Second,
	IdleTimeout:       60 * time.Second,
	MaxHeaderBytes:    64 << 10,
	MaxBodyBytes:      1 << 20,
	MaxConns:          512,
	MaxConnsPerAddr:   64,
	RetryAfter:        time.Second,
}

// ErrInvalidOption is an option with a value out of range.
var ErrInvalidOption = errors.New("httpserve: invalid option")

// Option changes one limit.
type Option func(*Limits) error

// WithWriteTimeout sets the write timeout: a server whose replies wait on something slow (the
// controller's turns wait on the examiner) sets it past that wait.
func WithWriteTimeout(d time.Duration) Option {
	return func(l *Limits) error {
		if d <= 0 {
			return fmt.Errorf("%w: write timeout %v", ErrInvalidOption, d)
		}
		l.WriteTimeout = d
		return nil
	}
}

// WithMaxBody caps every request body.
func WithMaxBody(n int64) Option {
	return func(l *Limits) error {
		if n <= 0 {
			return fmt.Errorf("%w: max body %d", ErrInvalidOption, n)
		}
		l.MaxBodyBytes = n
		return nil
	}
}

// WithMaxConns caps concurrent connections to the server, and from one client address.
func WithMaxConns(total, perAddr int) Option {
	return func(l *Limits) error {
		if total < 1 || perAddr < 1 || perAddr > total {
			return fmt.Errorf("%w: max connections %d, per address %d", ErrInvalidOption, total, perAddr)
		}
		l.MaxConns, l.MaxConnsPerAddr = total, perAddr
		return nil
	}
}

// WithLimits replaces every limit (zero fields keep the default): for an embedding program, or
// a test that needs short timeouts.
func WithLimits(n Limits) Option {
	return func(l *Limits) error {
		if n.MaxConnsPerAddr > n.MaxConns && n.MaxConns > 0 {
			return fmt.Errorf("%w: %d connections per address over %d in all", ErrInvalidOption, n.MaxConnsPerAddr, n.MaxConns)
		}
		keep := func(d *time.Duration, v time.Duration) {
			if v > 0 {
				*d = v
			}
		}
		keep(&l.ReadHeaderTimeout, n.ReadHeaderTimeout)
		keep(&l.ReadTimeout, n.ReadTimeout)
		keep(&l.WriteTimeout, n.WriteTimeout)
		keep(&l.IdleTimeout, n.IdleTimeout)
		keep(&l.RetryAfter, n.RetryAfter)
		if n.MaxHeaderBytes > 0 {
			l.MaxHeaderBytes = n.MaxHeaderBytes
		}
		if n.MaxBodyBytes > 0 {
			l.MaxBodyBytes = n.MaxBodyBytes
		}
		if n.MaxConns > 0 {
			l.MaxConns = n.MaxConns
		}
		if n.MaxConnsPerAddr > 0 {
			l.MaxConnsPerAddr = n.MaxConnsPerAddr
		}
		return nil
	}
}

// WithTLS serves HTTPS with conf.
func WithTLS(conf *tls.Config) Option {
	return func(l *Limits) error {
		if conf == nil {
			return fmt.Errorf("%w: nil TLS config", ErrInvalidOption)
		}
		l.tls = conf
		return nil
	}
}

func (l Limits) apply(hs *http.Server, ln net.Listener) net.Listener {
	set := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	set(&hs.ReadHeaderTimeout, l.ReadHeaderTimeout)
	set(&hs.ReadTimeout, l.ReadTimeout)
	set(&hs.WriteTimeout, l.WriteTimeout)
	set(&hs.IdleTimeout, l.IdleTimeout)
	if hs.MaxHeaderBytes == 0 {
		hs.MaxHeaderBytes = l.MaxHeaderBytes
	}
	if hs.Handler != nil {
		hs.Handler = http.MaxBytesHandler(hs.Handler, l.MaxBodyBytes)
	}
	cl := &capListener{Listener: ln, lim: l, conns: map[net.Conn]*entry{}, perAddr: map[string]int{},
		rejecting: make(chan struct{}, 64)}
	prev := hs.ConnState
	hs.ConnState = func(c net.Conn, st http.ConnState) {
		cl.state(c, st)
		if prev != nil {
			prev(c, st)
		}
	}
	if l.tls != nil {
		return tls.NewListener(cl, l.tls)
	}
	return cl
}

// capListener admits connections within the caps. At a cap, the oldest connection of that scope
// that is between requests (or has not finished its first request's headers) is closed to make
// room, so idle and slow-header connections cannot shut others out; only when every connection
// of the scope is inside a request does the new one get 503 with Retry-After.
type capListener struct {
	net.Listener
	lim       Limits
	mu        sync.Mutex
	seq       uint64
	conns     map[net.Conn]*entry
	perAddr   map[string]int
	rejecting chan struct{} // slots for rejections in flight, so they cannot pile up
}

type entry struct {
	addr   string
	seq    uint64 // admission order: lower is older
	active bool   // inside a request
	conn   net.Conn
}

func hostOf(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return h
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := hostOf(c.RemoteAddr())
		l.mu.Lock()
		ok := true
		if l.perAddr[addr] >= l.lim.MaxConnsPerAddr {
			ok = l.evictLocked(addr)
		}
		if ok && len(l.conns) >= l.lim.MaxConns {
			ok = l.evictLocked("")
		}
		if !ok {
			l.mu.Unlock()
			l.reject(c)
			continue
		}
		l.seq++
		wc := &conn{Conn: c, l: l}
		l.conns[wc] = &entry{addr: addr, seq: l.seq, conn: wc}
		l.perAddr[addr]++
		l.mu.Unlock()
		return wc, nil
	}
}

// evictLocked closes the oldest connection outside a request, from addr ("" any address), and
// reports whether it found one.
func (l *capListener) evictLocked(addr string) bool {
	var victim *entry
	for _, e := range l.conns {
		if e.active || (addr != "" && e.addr != addr) {
			continue
		}
		if victim == nil || e.seq < victim.seq {
			victim = e
		}
	}
	if victim == nil {
		return false
	}
	l.forgetLocked(victim.conn)
	go victim.conn.(*conn).Conn.Close() // closing may block on TLS; the slot is free already
	return true
}

func (l *capListener) forgetLocked(c net.Conn) {
	e, ok := l.conns[c]
	if !ok {
		return
	}
	delete(l.conns, c)
	if l.perAddr[e.addr]--; l.perAddr[e.addr] <= 0 {
		delete(l.perAddr, e.addr)
	}
}

func (l *capListener) state(c net.Conn, st http.ConnState) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch st {
	case http.StateActive:
		if e, ok := l.conns[c]; ok {
			e.active = true
		}
	case http.StateIdle:
		if e, ok := l.conns[c]; ok {
			e.active = false
		}
	case http.StateClosed, http.StateHijacked:
		l.forgetLocked(c)
	}
}

// busy is the whole reply to a connection over a cap.
const busy = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n" +
	"Cache-Control: no-store\r\nConnection: close\r\nRetry-After: %d\r\nContent-Length: %d\r\n\r\n%s"

const busyBody = "busy: too many connections, try again shortly\n"

// reject answers 503 with Retry-After and closes, within a second. The answer is plain HTTP
// (the caps count TCP connections, before TLS): a TLS client sees the connection close. When
// many rejections are in flight already the connection is just closed.
func (l *capListener) reject(c net.Conn) {
	select {
	case l.rejecting <- struct{}{}:
	default:
		_ = c.Close()
		return
	}
	go func() {
		defer func() { <-l.rejecting }()
		_ = c.SetDeadline(time.Now().Add(time.Second))
		secs := max(1, int(l.lim.RetryAfter.Round(time.Second)/time.Second))
		_, _ = fmt.Fprintf(c, busy, secs, len(busyBody), busyBody)
		_ = c.Close()
	}()
}

// conn leaves the caps when closed, whoever closes it.
type conn struct {
	net.Conn
	l    *capListener
	once sync.Once
}

func (c *conn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.forgetLocked(c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
