package restapi

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"

	gwebsocket "github.com/gorilla/websocket"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/transport/websocket"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/wsstream"
)

// streamProtocolV5 is the remotecommand protocol of client-go's WebSocket
// executor (NewWebSocketExecutor asks for it alone): v4's channels and
// Status, plus a CLOSE signal that ends one stream (stdin).
const streamProtocolV5 = "v5.channel.k8s.io"

// Channels of the WebSocket remotecommand protocols: the first byte of each
// binary message.
const (
	wsStdin  = 0
	wsStdout = 1
	wsStderr = 2
	wsError  = 3
	wsResize = 4
	wsClose  = 255
)

// serveWebSocket serves one WebSocket upgrade request of client-go's
// WebSocket executor (remotecommand.NewWebSocketExecutor, and
// NewFallbackExecutor's first try) whose round tripper is rt: the same call
// of the process as SPDY's (connect), then a WebSocket connection in memory
// on which the kubelet's side speaks protocol v5. rt.Conn, which the
// executor reads the connection from, is a gorilla connection dialled over
// wsConn: the handshake and every frame are gorilla's own, client side.
// Refusals are what client-go makes of a failed handshake: an
// UpgradeFailureError (on which the fallback executor tries SPDY) whose
// cause is the API error's StatusError or the kubelet's text.
func (t *Transport) serveWebSocket(rt *websocket.RoundTripper, req *http.Request) (*http.Response, error) {
	protocols := req.Header[wsstream.WebSocketProtocolHeader] // (websocket.Negotiate)
	tg, ok := parseConnect(req.URL.Path)
	if ok && tg.sub != "portforward" && !slices.Contains(protocols, streamProtocolV5) {
		return nil, &httpstream.UpgradeFailureError{Cause: fmt.Errorf("ctrlsim: process %s: WebSocket streaming protocols %q (%s %s) are not served by the apiserver model: only %s, client-go's NewWebSocketExecutor's, is (known gap of package restapi)", t.name, protocols, req.Method, req.URL.Path, streamProtocolV5)}
	}
	if req.Method != http.MethodGet {
		a, _ := errorAnswer(req, notFound())
		return nil, wsUpgradeFailure(a)
	}
	c, answer, err := t.connect(req)
	if err != nil {
		return nil, err
	}
	if answer != nil {
		return nil, wsUpgradeFailure(answer)
	}
	conn := &wsConn{kubeletSide: newKubeletSide(c.opts, c.run)}
	conn.result, conn.timeout = c.result, c.timeout
	d := gwebsocket.Dialer{
		NetDialContext:  func(_ context.Context, _, _ string) (net.Conn, error) { return conn, nil },
		Subprotocols:    []string{streamProtocolV5},
		ReadBufferSize:  rt.DataBufferSize() + 1024,
		WriteBufferSize: rt.DataBufferSize() + 1024,
	}
	u := *req.URL
	u.Scheme = "ws"
	ws, resp, err := d.DialContext(req.Context(), u.String(), nil)
	if err != nil {
		return nil, err
	}
	rt.Conn = ws
	resp.Body = http.NoBody
	return resp, nil
}

// wsUpgradeFailure is client-go's WebSocket round tripper's error for a
// handshake answered with a: an UpgradeFailureError whose cause is the
// answer's Status as a StatusError, or else its text.
func wsUpgradeFailure(a *http.Response) error {
	body, _ := io.ReadAll(a.Body)
	cause := fmt.Errorf("%w (%s)", gwebsocket.ErrBadHandshake, a.Status)
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err == nil && st.Kind == "Status" {
		cause = &apierrors.StatusError{ErrStatus: st}
	} else if text := strings.TrimSpace(string(body)); text != "" {
		cause = fmt.Errorf("%w: %s", cause, text)
	}
	return &httpstream.UpgradeFailureError{Cause: cause}
}

// wsConn is the in-memory connection of one exec or attach over WebSocket:
// the client (gorilla's, inside client-go's executor) reads and writes it as
// a socket to the kubelet, and wsConn answers as the kubelet's WebSocket
// remotecommand server does with protocol v5: the handshake, then it
// collects stdin (channel 0) until the client's CLOSE signal for it, runs
// the command, writes stdout (1), stderr (2) and the Status (3), and closes
// the connection (a close frame, normal closure), answering pings with
// pongs. Like execConn it has no goroutine: its side runs inside the
// client's writes, and reads block on a channel until it has written.
type wsConn struct {
	kubeletSide
	handshaken bool
	msgOp      byte
	msg        []byte // a fragmented message's payload so far
}

var _ net.Conn = (*wsConn)(nil)

// Write takes the client's bytes: the handshake request, then frames.
func (c *wsConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.signal()
	defer c.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	if c.eof {
		return len(p), nil // a close frame's answer after the kubelet's side closed
	}
	c.in = append(c.in, p...)
	if !c.handshaken {
		end := bytes.Index(c.in, []byte("\r\n\r\n"))
		if end < 0 {
			return len(p), nil
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(c.in[:end+4])))
		c.in = c.in[end+4:]
		if err != nil {
			c.eof = true
			return len(p), nil
		}
		c.handshake(req)
	}
	for c.frame() {
	}
	c.maybeFinish()
	return len(p), nil
}

// handshake answers the opening handshake (RFC 6455 section 4.2.2).
func (c *wsConn) handshake(req *http.Request) {
	h := sha1.Sum([]byte(req.Header.Get("Sec-Websocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	fmt.Fprintf(&c.out, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: %s\r\n\r\n",
		base64.StdEncoding.EncodeToString(h[:]), streamProtocolV5)
	c.handshaken = true
}

// frame handles the first whole frame of c.in, if there is one (RFC 6455
// section 5.2: a client's frames are masked).
func (c *wsConn) frame() bool {
	in := c.in
	if len(in) < 2 {
		return false
	}
	fin, op := in[0]&0x80 != 0, in[0]&0x0f
	masked, n, hdr := in[1]&0x80 != 0, uint64(in[1]&0x7f), 2
	switch n {
	case 126:
		if len(in) < 4 {
			return false
		}
		n, hdr = uint64(binary.BigEndian.Uint16(in[2:4])), 4
	case 127:
		if len(in) < 10 {
			return false
		}
		n, hdr = binary.BigEndian.Uint64(in[2:10]), 10
	}
	var key []byte
	if masked {
		if len(in) < hdr+4 {
			return false
		}
		key, hdr = in[hdr:hdr+4], hdr+4
	}
	if uint64(len(in)-hdr) < n {
		return false
	}
	payload := bytes.Clone(in[hdr : hdr+int(n)])
	for i := range payload {
		if key != nil {
			payload[i] ^= key[i%4]
		}
	}
	c.in = in[hdr+int(n):]
	if op >= 8 { // control frames come whole, between a message's fragments
		c.control(op, payload)
		return !c.eof
	}
	if op != 0 {
		c.msgOp, c.msg = op, nil
	}
	c.msg = append(c.msg, payload...)
	if fin {
		c.message(c.msgOp, c.msg)
		c.msg = nil
	}
	return true
}

func (c *wsConn) control(op byte, payload []byte) {
	switch op {
	case gwebsocket.CloseMessage:
		c.send(gwebsocket.CloseMessage, gwebsocket.FormatCloseMessage(gwebsocket.CloseNormalClosure, ""))
		c.eof = true
	case gwebsocket.PingMessage:
		c.send(gwebsocket.PongMessage, payload)
	}
}

// message handles a client's data message: stdin, or the CLOSE signal of a
// stream (v5); resize messages are ignored (no TTY).
func (c *wsConn) message(op byte, data []byte) {
	if op != gwebsocket.BinaryMessage || len(data) == 0 {
		return
	}
	switch data[0] {
	case wsStdin:
		if !c.stdinEOF {
			c.stdin.Write(data[1:])
		}
	case wsClose:
		if len(data) > 1 && data[1] == wsStdin {
			c.stdinEOF = true
		}
	}
}

// maybeFinish runs the command once stdin is read to its end (at once
// without stdin), writes its output and Status and closes the connection.
func (c *wsConn) maybeFinish() {
	if c.finished || c.eof || !c.handshaken || (c.opts.stdin && !c.stdinEOF) {
		return
	}
	c.finished = true
	stdout, stderr, status := c.finish()
	if c.opts.stdout && len(stdout) > 0 {
		c.send(gwebsocket.BinaryMessage, append([]byte{wsStdout}, stdout...))
	}
	if c.opts.stderr && !c.opts.tty && len(stderr) > 0 {
		c.send(gwebsocket.BinaryMessage, append([]byte{wsStderr}, stderr...))
	}
	c.send(gwebsocket.BinaryMessage, append([]byte{wsError}, status...))
	c.send(gwebsocket.CloseMessage, gwebsocket.FormatCloseMessage(gwebsocket.CloseNormalClosure, ""))
	c.eof = true
}

// send writes one unmasked frame (a server's) of op with payload.
func (c *wsConn) send(op int, payload []byte) {
	c.out.WriteByte(0x80 | byte(op))
	switch n := len(payload); {
	case n < 126:
		c.out.WriteByte(byte(n))
	case n <= 0xffff:
		c.out.WriteByte(126)
		c.out.Write(binary.BigEndian.AppendUint16(nil, uint16(n)))
	default:
		c.out.WriteByte(127)
		c.out.Write(binary.BigEndian.AppendUint64(nil, uint64(n)))
	}
	c.out.Write(payload)
}
