package restapi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/moby/spdystream/spdy"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// streamOptions are the streams a connect request asks for (its query).
type streamOptions struct {
	stdin, stdout, stderr, tty bool
}

// execConn is the in-memory connection of one exec or attach: the client
// (client-go's SPDY executor, through spdystream) reads and writes it as it
// would a socket to the kubelet, and execConn answers as the kubelet's
// remotecommand server does with protocol v4: it replies to each stream the
// client creates, collects stdin until the client closes it, runs the
// command, writes stdout and stderr, the Status on the error stream, and
// closes the connection. It has no goroutine: the kubelet's side runs inside
// the client's writes (framing by spdystream's own Framer), and reads block
// on a channel until that side has written.
type execConn struct {
	kubeletSide
	feed    bytes.Buffer // whole frames, for the framer
	framer  *spdy.Framer
	streams map[string]spdy.StreamId // by stream type
}

// kubeletSide is what an in-memory connection to the kubelet (execConn over
// SPDY, wsConn over WebSocket) holds beside its protocol: the command and
// its outcome, the bytes each side wrote, and the two ends' state. It has
// no goroutine: the kubelet's side runs inside the client's writes, and a
// Read blocks on ready until that side has written.
type kubeletSide struct {
	opts    streamOptions
	run     func(stdin []byte) ExecResult
	result  *ExecResult
	timeout error // an ambiguous fault: the command ran, the client sees this

	mu       sync.Mutex
	in       []byte       // bytes written by the client, not yet handled
	out      bytes.Buffer // what the client reads
	stdin    bytes.Buffer
	stdinEOF bool
	finished bool // the command ran and its output is written
	eof      bool // the kubelet's side is closed: reads end once out is drained
	closed   bool // the client closed the connection
	ready    chan struct{}
}

func newKubeletSide(opts streamOptions, run func(stdin []byte) ExecResult) kubeletSide {
	return kubeletSide{opts: opts, run: run, ready: make(chan struct{}, 1)}
}

// finish runs the command on the stdin read (once: an ambiguous fault's
// command has run already) and gives what the kubelet writes back: stdout
// and stderr (one stream with a TTY) and the Status as JSON (the fault's,
// for an ambiguous one).
func (c *kubeletSide) finish() (stdout, stderr, status []byte) {
	if c.result == nil {
		r := c.run(bytes.Clone(c.stdin.Bytes()))
		c.result = &r
	}
	r := c.result
	stdout, stderr = r.Stdout, r.Stderr
	if c.opts.tty {
		stdout, stderr = append(bytes.Clone(stdout), stderr...), nil
	}
	st := execStatus(*r)
	if c.timeout != nil {
		if s, ok := c.timeout.(apierrors.APIStatus); ok {
			st = s.Status()
		}
	}
	status, err := json.Marshal(st)
	if err != nil {
		panic(err)
	}
	return stdout, stderr, status
}

var _ net.Conn = (*execConn)(nil)

func newExecConn(opts streamOptions, run func(stdin []byte) ExecResult) *execConn {
	c := &execConn{kubeletSide: newKubeletSide(opts, run), streams: map[string]spdy.StreamId{}}
	f, err := spdy.NewFramer(&c.out, &c.feed)
	if err != nil {
		panic(err) // only zlib's dictionary set-up, which cannot fail
	}
	c.framer = f
	return c
}

func (c *kubeletSide) signal() {
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

// Read returns what the kubelet's side wrote, blocking until there is some or
// that side is closed.
func (c *kubeletSide) Read(p []byte) (int, error) {
	for {
		c.mu.Lock()
		if c.out.Len() > 0 {
			n, _ := c.out.Read(p)
			c.mu.Unlock()
			return n, nil
		}
		if c.eof || c.closed {
			c.mu.Unlock()
			return 0, io.EOF
		}
		c.mu.Unlock()
		<-c.ready
	}
}

// Write takes the client's bytes and answers each whole SPDY frame.
func (c *execConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.signal()
	defer c.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	if c.eof {
		return len(p), nil // a GOAWAY after the kubelet's side closed
	}
	c.in = append(c.in, p...)
	for len(c.in) >= 8 {
		n := 8 + int(binary.BigEndian.Uint32(c.in[4:8])&0xffffff)
		if len(c.in) < n {
			break
		}
		c.feed.Write(c.in[:n])
		c.in = c.in[n:]
		frame, err := c.framer.ReadFrame()
		if err != nil {
			c.eof = true
			return len(p), nil
		}
		c.handle(frame)
	}
	return len(p), nil
}

func (c *execConn) handle(frame spdy.Frame) {
	switch f := frame.(type) {
	case *spdy.SynStreamFrame:
		c.streams[f.Headers.Get(corev1.StreamType)] = f.StreamId
		c.write(&spdy.SynReplyFrame{StreamId: f.StreamId, Headers: http.Header{}})
		if c.finished {
			c.write(&spdy.DataFrame{StreamId: f.StreamId, Flags: spdy.DataFlagFin})
		}
	case *spdy.DataFrame:
		if id, ok := c.streams[corev1.StreamTypeStdin]; ok && id == f.StreamId && !c.stdinEOF {
			c.stdin.Write(f.Data)
			if f.Flags&spdy.DataFlagFin != 0 {
				c.stdinEOF = true
			}
		}
	case *spdy.PingFrame:
		c.write(&spdy.PingFrame{Id: f.Id})
	case *spdy.GoAwayFrame:
		c.eof = true
		return
	}
	c.maybeFinish()
}

func (c *execConn) write(f spdy.Frame) {
	if err := c.framer.WriteFrame(f); err != nil {
		c.eof = true
	}
}

// maybeFinish runs the command once every stream the request asked for
// exists (and stdin is read to its end), then writes its output, its Status
// and closes the kubelet's side.
func (c *execConn) maybeFinish() {
	if c.finished {
		return
	}
	want := []string{corev1.StreamTypeError}
	if c.opts.stdin {
		want = append(want, corev1.StreamTypeStdin)
	}
	if c.opts.stdout {
		want = append(want, corev1.StreamTypeStdout)
	}
	if c.opts.stderr && !c.opts.tty {
		want = append(want, corev1.StreamTypeStderr)
	}
	for _, w := range want {
		if _, ok := c.streams[w]; !ok {
			return
		}
	}
	if c.opts.stdin && !c.stdinEOF {
		return
	}
	c.finished = true
	stdout, stderr, status := c.finish()
	c.data(corev1.StreamTypeStdout, stdout)
	c.data(corev1.StreamTypeStderr, stderr)
	c.data(corev1.StreamTypeError, status)
	c.data(corev1.StreamTypeStdin, nil)
	c.data(corev1.StreamTypeResize, nil)
	c.eof = true
}

// data writes b on the stream of type typ, if the client created it, in
// frames of at most 32 KiB, and closes the kubelet's half of it.
func (c *execConn) data(typ string, b []byte) {
	id, ok := c.streams[typ]
	if !ok {
		return
	}
	for len(b) > 32*1024 {
		c.write(&spdy.DataFrame{StreamId: id, Data: b[:32*1024]})
		b = b[32*1024:]
	}
	c.write(&spdy.DataFrame{StreamId: id, Data: b, Flags: spdy.DataFlagFin})
}

func (c *kubeletSide) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.signal()
	return nil
}

// execAddr is the address of both ends of a connection to the kubelet.
type execAddr struct{}

func (execAddr) Network() string { return "ctrlsim" }
func (execAddr) String() string  { return "kubelet.ctrlsim.invalid" }

func (c *kubeletSide) LocalAddr() net.Addr                { return execAddr{} }
func (c *kubeletSide) RemoteAddr() net.Addr               { return execAddr{} }
func (c *kubeletSide) SetDeadline(t time.Time) error      { return nil }
func (c *kubeletSide) SetReadDeadline(t time.Time) error  { return nil }
func (c *kubeletSide) SetWriteDeadline(t time.Time) error { return nil }
