package restapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	spdycompat "k8s.io/apimachinery/pkg/util/httpstream/spdy"
	"k8s.io/client-go/transport/websocket"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// ExecRequest is one command run in a container through pods/exec (or the
// process attached to through pods/attach: Command is then empty).
type ExecRequest struct {
	// Pod is a copy of the pod as the apiserver stored it when the request
	// arrived; Container is the container's name (the pod's only container
	// when the request named none).
	Pod       *corev1.Pod
	Container string
	// Command is the command and its arguments (PodExecOptions.Command).
	Command []string
	// Stdin is everything the client sent on stdin (nil when the request has
	// no stdin stream).
	Stdin []byte
	// Subresource is "exec" or "attach".
	Subresource string
	// Files are the container's files, where a fake CLI keeps its state: the
	// world's (sim/cluster) gives each container of each pod its own, for the
	// pod's life (a pod re-created under its name starts with none).
	Files map[string]string
}

// ExecResult is what a command did: its output and how it ended. A zero
// ExitCode and nil Err is success; a non-zero ExitCode is the command's exit
// status (the client's exec.CodeExitError); Err is a failure to run it at all
// (the runtime's "executable file not found"), which the client sees as an
// internal error of the kubelet.
type ExecResult struct {
	Stdout, Stderr []byte
	ExitCode       int
	Err            error
}

// ExecHandler runs a command in a container: a fake of the operand's CLI.
// It runs inside the process's call, while the calling task waits; it must
// not call into the simulator.
type ExecHandler func(ctx context.Context, req ExecRequest) ExecResult

// ExecHandlers finds the handler of a container of a pod: nil when the test
// gave none.
type ExecHandlers func(pod *corev1.Pod, container string) ExecHandler

// SetExec makes t serve pods/exec and pods/attach with the handlers h.
func (t *Transport) SetExec(h ExecHandlers) { t.exec = h }

// wrap is the rest.Config's WrapTransport: client-go applies it to every
// transport it builds from the config, the REST transport itself (t, left
// as it is) and the upgrading round trippers of its streaming clients
// (tools/remotecommand's SPDY and WebSocket executors, portforward), which
// would dial the config's Host. Those are answered here, in process.
func (t *Transport) wrap(rt http.RoundTripper) http.RoundTripper {
	if rt == http.RoundTripper(t) {
		return rt
	}
	return &upgrader{t: t, rt: rt}
}

// upgrader serves the upgrade requests of one streaming client.
type upgrader struct {
	t  *Transport
	rt http.RoundTripper
}

func (u *upgrader) RoundTrip(req *http.Request) (*http.Response, error) {
	if u.t.enter != nil {
		u.t.enter(Asking(req, nil))
	}
	switch rt := u.rt.(type) {
	case *spdycompat.SpdyRoundTripper:
		return u.t.serveSPDY(rt, req)
	case *websocket.RoundTripper:
		return u.t.serveWebSocket(rt, req) // (wsconn.go)
	}
	return nil, fmt.Errorf("ctrlsim: process %s: a %T built from the REST config is not served by the apiserver model (known gap of package restapi): %s %s", u.t.name, u.rt, req.Method, req.URL.Path)
}

// connectTarget is what a connect request's path names.
type connectTarget struct {
	namespace, name, sub string
}

// parseConnect reads /api/v1/namespaces/<ns>/pods/<name>/<exec|attach|portforward>.
func parseConnect(path string) (connectTarget, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) != 7 || segs[0] != "api" || segs[1] != "v1" || segs[2] != "namespaces" || segs[4] != "pods" {
		return connectTarget{}, false
	}
	switch segs[6] {
	case "exec", "attach", "portforward":
		return connectTarget{namespace: segs[3], name: segs[5], sub: segs[6]}, true
	}
	return connectTarget{}, false
}

// serveSPDY serves one SPDY upgrade request of the executor whose upgrading
// round tripper is rt: one call of the process (connect), and a 101 answer
// whose connection is in memory: the executor's SPDY client speaks to
// execConn, which plays the kubelet's side of the stream protocol.
func (t *Transport) serveSPDY(rt *spdycompat.SpdyRoundTripper, req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost {
		return errorAnswer(req, notFound())
	}
	c, answer, err := t.connect(req)
	if err != nil || answer != nil {
		return answer, err
	}
	conn := newExecConn(c.opts, c.run)
	conn.result, conn.timeout = c.result, c.timeout
	if err := setUpgradedConn(rt, conn); err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("Connection", "Upgrade")
	h.Set("Upgrade", spdycompat.HeaderSpdy31)
	h.Set(httpstream.HeaderProtocolVersion, streamProtocolV4)
	return &http.Response{
		Status: "101 Switching Protocols", StatusCode: http.StatusSwitchingProtocols,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: http.NoBody, Request: req,
	}, nil
}

// connected is an admitted exec or attach: the streams asked for, the
// command (run already when the request has no stdin), and the timeout an
// ambiguous fault answers on the error stream.
type connected struct {
	opts    streamOptions
	run     func(stdin []byte) ExecResult
	result  *ExecResult
	timeout error
}

// connect is one connect request (exec, attach, portforward), whichever the
// streaming protocol: one call of the process (trace, yield, latency,
// crash, RBAC on create pods/<sub>, faults), in which the apiserver admits
// the request, the kubelet finds the container running and the handler runs
// the command (at once, or once stdin is read). It returns the admitted
// request, or the answer that refuses it (an API error's Status, or the
// kubelet's plain text), or the transport's error (the process died).
func (t *Transport) connect(req *http.Request) (*connected, *http.Response, error) {
	tg, ok := parseConnect(req.URL.Path)
	if !ok {
		a, err := errorAnswer(req, notFound())
		return nil, a, err
	}
	q := req.URL.Query()
	opts := streamOptions{
		stdin: flag(q, "stdin"), stdout: flag(q, "stdout"), stderr: flag(q, "stderr"), tty: flag(q, "tty"),
	}
	command := q["command"]
	call := kubeclient.Call{Verb: "create", Subresource: tg.sub, Namespace: tg.namespace, Name: tg.name,
		Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: tg.namespace, Name: tg.name}}}
	var out *connected
	var answer error // an error the kubelet answers the upgrade with (plain text)
	err := t.c.Do(call, func() error {
		if tg.sub == "portforward" {
			// client-go's PortForwarder listens on a real local socket
			// (net.Listen) and copies between its connections and the
			// streams: a socket's I/O is outside the scheduler and the
			// bubble, so no part of it can be served deterministically.
			return t.notServed("port-forward (pods/portforward: client-go's PortForwarder serves it on a real local socket, which cannot run in-process deterministically)")
		}
		pod, container, done, err := t.server.Connect(t.c.User(), tg.sub, tg.namespace, tg.name, first(q, "container"))
		if err != nil {
			return err
		}
		if !opts.stdin && !opts.stdout && !opts.stderr {
			return apierrors.NewBadRequest("you must specify at least 1 of stdin, stdout, stderr")
		}
		if !containerRunning(pod, container) {
			// The kubelet finds only running containers (findContainer).
			if tg.sub == "attach" {
				answer = fmt.Errorf("container %s not found in pod %s", container, pod.Name+"_"+pod.Namespace)
			} else {
				answer = fmt.Errorf("container not found (%q)", container)
			}
			return nil
		}
		var handler ExecHandler
		if t.exec != nil {
			handler = t.exec(pod, container)
		}
		if handler == nil {
			answer = fmt.Errorf("ctrlsim: process %s: %s in container %q of pod %s/%s (command %q) has no handler: give one in operatortest.Options.Exec (by container name or image)", t.name, tg.sub, container, pod.Namespace, pod.Name, command)
			return nil
		}
		er := ExecRequest{Pod: pod, Container: container, Command: command, Subresource: tg.sub}
		ctx := req.Context()
		out = &connected{opts: opts, run: func(stdin []byte) ExecResult {
			er.Stdin = stdin
			return handler(ctx, er)
		}, timeout: done()}
		if !opts.stdin {
			r := out.run(nil)
			out.result = &r
		}
		return nil
	})
	if err != nil {
		var st apierrors.APIStatus
		if !errors.As(err, &st) && !apierrors.IsMethodNotSupported(err) {
			return nil, nil, err // the process died during the call
		}
		a, err := errorAnswer(req, err)
		return nil, a, err
	}
	if answer != nil {
		return nil, textAnswer(req, http.StatusInternalServerError, answer.Error()), nil
	}
	return out, nil, nil
}

// streamProtocolV4 is the remotecommand protocol the kubelet's SPDY server
// negotiates with client-go (v4.channel.k8s.io: the exit code in the error
// stream's Status).
const streamProtocolV4 = "v4.channel.k8s.io"

func flag(q map[string][]string, key string) bool {
	v := first(q, key)
	return v == "true" || v == "1"
}

// containerRunning reports whether the kubelet would find the container:
// its status says it is running.
func containerRunning(pod *corev1.Pod, container string) bool {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for _, cs := range list {
			if cs.Name == container {
				return cs.State.Running != nil
			}
		}
	}
	return false
}

// errorAnswer is an API error as the apiserver answers an upgrade request:
// its Status, which client-go's SPDY upgrader turns into "unable to upgrade
// connection: <message>".
func errorAnswer(req *http.Request, err error) (*http.Response, error) {
	return respond(req, 0, nil, err)
}

// textAnswer is an error the kubelet writes as plain text (streaming.WriteError).
func textAnswer(req *http.Request, code int, text string) *http.Response {
	return &http.Response{
		Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), StatusCode: code,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": []string{"text/plain; charset=utf-8"}},
		Body:          io.NopCloser(strings.NewReader(text)),
		ContentLength: int64(len(text)),
		Request:       req,
	}
}

// setUpgradedConn gives client-go's SPDY round tripper the connection it would
// have dialled: the upgrader reads it in NewConnection. The field is not
// exported (k8s.io/streaming's SpdyRoundTripper.conn, behind apimachinery's
// compatibility wrapper); TestTheSPDYRoundTripperKeepsItsConnField pins it.
func setUpgradedConn(rt *spdycompat.SpdyRoundTripper, conn net.Conn) error {
	f, err := spdyConnField(rt)
	if err != nil {
		return err
	}
	f.Set(reflect.ValueOf(conn))
	return nil
}

// spdyConnField is the settable conn field of rt's delegate.
func spdyConnField(rt *spdycompat.SpdyRoundTripper) (reflect.Value, error) {
	v := reflect.ValueOf(rt).Elem().FieldByName("delegate")
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
		return reflect.Value{}, fmt.Errorf("ctrlsim: apimachinery's spdy.SpdyRoundTripper has no delegate round tripper: the exec seam of package restapi needs updating for this client-go")
	}
	f := v.Elem().FieldByName("conn")
	if !f.IsValid() || f.Type() != reflect.TypeFor[net.Conn]() {
		return reflect.Value{}, fmt.Errorf("ctrlsim: k8s.io/streaming's SpdyRoundTripper has no conn net.Conn field: the exec seam of package restapi needs updating for this client-go")
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), nil
}

// execStatus is the Status the kubelet writes on the error stream for r
// (remotecommand ServeExec, protocol v4).
func execStatus(r ExecResult) metav1.Status {
	switch {
	case r.Err != nil:
		return apierrors.NewInternalError(fmt.Errorf("error executing command in container: %v", r.Err)).ErrStatus
	case r.ExitCode != 0:
		return metav1.Status{
			Status: metav1.StatusFailure,
			Reason: "NonZeroExitCode",
			Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{
				Type: "ExitCode", Message: fmt.Sprint(r.ExitCode),
			}}},
			Message: fmt.Sprintf("command terminated with non-zero exit code: command terminated with exit code %d", r.ExitCode),
		}
	}
	return metav1.Status{Status: metav1.StatusSuccess}
}
