package restapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	spdycompat "k8s.io/apimachinery/pkg/util/httpstream/spdy"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/client-go/util/exec"
	streamhttp "k8s.io/streaming/pkg/httpstream"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
)

// execWorld is a world whose transport serves exec with h, and a pod "db-0"
// with one container "app" whose state is running (or not).
func execWorld(t *testing.T, user apiserver.User, running bool, h restapi.ExecHandler) (*world, *kubernetes.Clientset) {
	w := &world{}
	w0 := newWorld(t, apiserver.Admin)
	w.clk, w.server = w0.clk, w0.server
	c := kubeclient.New(w.server, user, kubeclient.Options{Hooks: kubeclient.Hooks{
		Before: func(call kubeclient.Call) error { w.calls = append(w.calls, call); return nil },
	}})
	tr := restapi.New(c, w.server, "op", nil)
	tr.SetExec(func(pod *corev1.Pod, container string) restapi.ExecHandler {
		if container == "app" {
			return h
		}
		return nil
	})
	w.cfg = tr.Config()
	admin := kubeclient.New(w.server, apiserver.Admin, kubeclient.Options{})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db-0"},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "app", Image: "app:1"}, {Name: "sidecar", Image: "side:1"}}}}
	if err := admin.Create(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
	state := corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	phase := corev1.PodPending
	if running {
		state = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
		phase = corev1.PodRunning
	}
	pod.Status = corev1.PodStatus{Phase: phase, QOSClass: pod.Status.QOSClass, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", State: state}, {Name: "sidecar", State: state}}}
	if err := admin.Status().Update(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(w.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w, cs
}

// execIn runs command in container of db-0 as an operator does: client-go's
// SPDY executor on the REST config, unchanged.
func execIn(w *world, cs *kubernetes.Clientset, container string, stdin string, command ...string) (stdout, stderr string, err error) {
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name("db-0").SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: command, Stdin: stdin != "", Stdout: true, Stderr: true}, scheme.ParameterCodec)
	ex, err := remotecommand.NewSPDYExecutor(w.cfg, "POST", req.URL())
	if err != nil {
		return "", "", err
	}
	var out, errOut bytes.Buffer
	opts := remotecommand.StreamOptions{Stdout: &out, Stderr: &errOut}
	if stdin != "" {
		opts.Stdin = strings.NewReader(stdin)
	}
	err = ex.StreamWithContext(context.Background(), opts)
	return out.String(), errOut.String(), err
}

// A fake CLI: "get" prints the value, "set V" stores it, "fail" exits 3,
// "load" stores stdin.
func fakeCLI(state map[string]string) restapi.ExecHandler {
	return func(ctx context.Context, r restapi.ExecRequest) restapi.ExecResult {
		key := r.Pod.Namespace + "/" + r.Pod.Name + "/" + r.Container
		switch {
		case len(r.Command) == 2 && r.Command[0] == "get":
			return restapi.ExecResult{Stdout: []byte(state[key] + "\n")}
		case len(r.Command) == 3 && r.Command[0] == "set":
			state[key] = r.Command[2]
			return restapi.ExecResult{Stdout: []byte("ok\n")}
		case len(r.Command) == 2 && r.Command[0] == "load":
			state[key] = string(r.Stdin)
			return restapi.ExecResult{}
		case len(r.Command) == 1 && r.Command[0] == "fail":
			return restapi.ExecResult{Stderr: []byte("boom\n"), ExitCode: 3}
		}
		return restapi.ExecResult{Err: fmt.Errorf("exec: %q: executable file not found in $PATH", r.Command[0])}
	}
}

// Each case runs in a synctest bubble, as operatortest's runs do: every
// goroutine the executor starts ends with the exec (the bubble would panic
// otherwise), and nothing waits on the wall clock.
func inBubble(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	synctest.Test(t, f)
}

func TestExecRunsTheHandlerThroughClientGosSPDYExecutor(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		state := map[string]string{}
		w, cs := execWorld(t, apiserver.Admin, true, fakeCLI(state))
		out, errOut, err := execIn(w, cs, "app", "", "set", "k", "v1")
		if err != nil || out != "ok\n" || errOut != "" {
			t.Fatalf("set: stdout %q stderr %q err %v, want ok and no error", out, errOut, err)
		}
		if state["default/db-0/app"] != "v1" {
			t.Fatalf("the handler's state is %v, want v1 stored for db-0's app", state)
		}
		out, _, err = execIn(w, cs, "", "", "get", "x") // no container named, and the pod has two
		if err == nil || !strings.Contains(err.Error(), "a container name must be specified for pod db-0, choose one of: [app sidecar]") {
			t.Fatalf("exec without a container in a two-container pod: %q %v, want the registry's 400", out, err)
		}
		out, _, err = execIn(w, cs, "app", "", "get", "x")
		if err != nil || out != "v1\n" {
			t.Fatalf("get: %q %v", out, err)
		}
		n := 0
		for _, c := range w.calls {
			if c.Verb == "create" && c.Subresource == "exec" && c.Name == "db-0" {
				n++
			}
		}
		if n != 3 {
			t.Fatalf("%d calls create pods/exec traced, want one per exec (3): %+v", n, w.calls)
		}
	})
}

func TestExecExitCodeIsTheClientsCodeExitError(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		w, cs := execWorld(t, apiserver.Admin, true, fakeCLI(map[string]string{}))
		_, errOut, err := execIn(w, cs, "app", "", "fail")
		var ce exec.CodeExitError
		if !errors.As(err, &ce) || ce.Code != 3 || errOut != "boom\n" {
			t.Fatalf("a command exiting 3: err %v (%T) stderr %q, want exec.CodeExitError code 3 and its stderr", err, err, errOut)
		}
		_, _, err = execIn(w, cs, "app", "", "nosuch")
		if err == nil || err.Error() != `Internal error occurred: error executing command in container: exec: "nosuch": executable file not found in $PATH` {
			t.Fatalf("a command that cannot run: %v, want the kubelet's internal error", err)
		}
	})
}

func TestExecSendsStdinToTheHandler(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		state := map[string]string{}
		w, cs := execWorld(t, apiserver.Admin, true, fakeCLI(state))
		if _, _, err := execIn(w, cs, "app", "line one\nline two\n", "load", "-"); err != nil {
			t.Fatal(err)
		}
		if state["default/db-0/app"] != "line one\nline two\n" {
			t.Fatalf("stdin reached the handler as %q", state["default/db-0/app"])
		}
	})
}

func TestExecIntoAPodNotRunningAnswersAsTheKubelet(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		called := false
		w, cs := execWorld(t, apiserver.Admin, false, func(context.Context, restapi.ExecRequest) restapi.ExecResult {
			called = true
			return restapi.ExecResult{}
		})
		_, _, err := execIn(w, cs, "app", "", "get", "x")
		if err == nil || err.Error() != `unable to upgrade connection: container not found ("app")` || called {
			t.Fatalf("exec into a container not running: %v (handler called: %v), want the kubelet's container not found", err, called)
		}
	})
}

func TestExecWithoutAHandlerNamesThePodContainerAndCommand(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		w, cs := execWorld(t, apiserver.Admin, true, fakeCLI(map[string]string{}))
		_, _, err := execIn(w, cs, "sidecar", "", "side-cli", "status")
		if err == nil || !strings.Contains(err.Error(), `exec in container "sidecar" of pod default/db-0 (command ["side-cli" "status"]) has no handler`) {
			t.Fatalf("exec with no handler: %v, want an error naming the pod, container and command", err)
		}
	})
}

func TestExecOfAMissingPodIsNotFound(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		w, cs := execWorld(t, apiserver.Admin, true, fakeCLI(map[string]string{}))
		req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name("db-9").SubResource("exec").
			VersionedParams(&corev1.PodExecOptions{Command: []string{"get"}, Stdout: true}, scheme.ParameterCodec)
		ex, err := remotecommand.NewSPDYExecutor(w.cfg, "POST", req.URL())
		if err != nil {
			t.Fatal(err)
		}
		err = ex.StreamWithContext(context.Background(), remotecommand.StreamOptions{Stdout: &bytes.Buffer{}})
		if err == nil || err.Error() != `unable to upgrade connection: pods "db-9" not found` {
			t.Fatalf("exec into a missing pod: %v", err)
		}
	})
}

func TestExecNeedsCreateOnPodsExec(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		sa := apiserver.User{Name: "system:serviceaccount:default:op"}
		called := false
		w, cs := execWorld(t, sa, true, func(context.Context, restapi.ExecRequest) restapi.ExecResult {
			called = true
			return restapi.ExecResult{}
		})
		admin := kubeclient.New(w.server, apiserver.Admin, kubeclient.Options{})
		ctx := context.Background()
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pods"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "create"}}}}
		binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pods"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "pods"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "default", Name: "op"}}}
		if err := admin.Create(ctx, role); err != nil {
			t.Fatal(err)
		}
		if err := admin.Create(ctx, binding); err != nil {
			t.Fatal(err)
		}
		_, _, err := execIn(w, cs, "app", "", "get", "x")
		want := `unable to upgrade connection: pods "db-0" is forbidden: User "system:serviceaccount:default:op" cannot create resource "pods/exec" in API group "" in the namespace "default"`
		if err == nil || err.Error() != want || called {
			t.Fatalf("exec without create pods/exec: %v (handler called %v), want %s", err, called, want)
		}
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods/exec"}, Verbs: []string{"create"}})
		if err := admin.Update(ctx, role); err != nil {
			t.Fatal(err)
		}
		if _, _, err := execIn(w, cs, "app", "", "get", "x"); err != nil || !called {
			t.Fatalf("exec with create pods/exec: %v (handler called %v)", err, called)
		}
	})
}

func TestExecFaultsFailOrTimeOut(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		state := map[string]string{}
		w, cs := execWorld(t, apiserver.Admin, true, fakeCLI(state))
		remove := w.server.InjectFault(apiserver.Fault{Verb: "create", Resource: "pods", Subresource: "exec", Code: 500, Count: 1})
		_, _, err := execIn(w, cs, "app", "", "set", "k", "v1")
		if err == nil || err.Error() != "unable to upgrade connection: Internal error occurred: injected fault" || state["default/db-0/app"] != "" {
			t.Fatalf("an exec failing with 500: %v, state %v: want the error and no effect", err, state)
		}
		remove()
		w.server.InjectFault(apiserver.Fault{Verb: "create", Resource: "pods", Subresource: "exec", Ambiguous: true, Count: 1})
		_, _, err = execIn(w, cs, "app", "", "set", "k", "v2")
		if err == nil || !strings.Contains(err.Error(), "the server was unable to return a response in the time allotted") || state["default/db-0/app"] != "v2" {
			t.Fatalf("an exec timing out: %v, state %v: want a timeout and the command's effect", err, state)
		}
		if _, _, err = execIn(w, cs, "app", "", "set", "k", "v3"); err != nil {
			t.Fatalf("the fault's count is used up, yet: %v", err)
		}
	})
}

// wsExecIn runs command as execIn does, through client-go's WebSocket
// executor (protocol v5), or with fallback through kubectl's
// NewFallbackExecutor (WebSocket first, then SPDY on an upgrade failure).
func wsExecIn(w *world, cs *kubernetes.Clientset, fallback bool, container string, stdin string, command ...string) (stdout, stderr string, err error) {
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name("db-0").SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: command, Stdin: stdin != "", Stdout: true, Stderr: true}, scheme.ParameterCodec)
	var ex remotecommand.Executor
	ex, err = remotecommand.NewWebSocketExecutor(w.cfg, "GET", req.URL().String())
	if err != nil {
		return "", "", err
	}
	if fallback {
		spdy, err := remotecommand.NewSPDYExecutor(w.cfg, "POST", req.URL())
		if err != nil {
			return "", "", err
		}
		if ex, err = remotecommand.NewFallbackExecutor(ex, spdy, func(err error) bool {
			return streamhttp.IsUpgradeFailure(err) || streamhttp.IsHTTPSProxyError(err)
		}); err != nil {
			return "", "", err
		}
	}
	var out, errOut bytes.Buffer
	opts := remotecommand.StreamOptions{Stdout: &out, Stderr: &errOut}
	if stdin != "" {
		opts.Stdin = strings.NewReader(stdin)
	}
	err = ex.StreamWithContext(context.Background(), opts)
	return out.String(), errOut.String(), err
}

// client-go's WebSocket executor (remotecommand.NewWebSocketExecutor,
// protocol v5) reaches the container's handler as the SPDY executor does:
// stdout, stdin to its end, the exit code as exec.CodeExitError, each exec
// one create pods/exec call of the process.
func TestTheWebSocketExecutorRunsTheHandler(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		state := map[string]string{}
		w, cs := execWorld(t, apiserver.Admin, true, fakeCLI(state))
		out, errOut, err := wsExecIn(w, cs, false, "app", "", "set", "k", "ws")
		if err != nil || out != "ok\n" || errOut != "" || state["default/db-0/app"] != "ws" {
			t.Fatalf("set over WebSocket: stdout %q stderr %q err %v state %v", out, errOut, err, state)
		}
		if _, _, err = wsExecIn(w, cs, false, "app", "line 1\nline 2\n", "load", "x"); err != nil || state["default/db-0/app"] != "line 1\nline 2\n" {
			t.Fatalf("stdin over WebSocket: %v, state %q", err, state["default/db-0/app"])
		}
		big := strings.Repeat("0123456789abcdef", 5000) // 80 KB: fragmented frames
		if _, _, err = wsExecIn(w, cs, false, "app", big, "load", "x"); err != nil || state["default/db-0/app"] != big {
			t.Fatalf("80 KB of stdin over WebSocket: %v, got %d bytes", err, len(state["default/db-0/app"]))
		}
		out, errOut, err = wsExecIn(w, cs, false, "app", "", "fail")
		var code exec.CodeExitError
		if !errors.As(err, &code) || code.Code != 3 || errOut != "boom\n" || out != "" {
			t.Fatalf("a failing command over WebSocket: %v (%T) stdout %q stderr %q, want exit code 3 and its stderr", err, err, out, errOut)
		}
		n := 0
		for _, c := range w.calls {
			if c.Verb == "create" && c.Subresource == "exec" && c.Name == "db-0" {
				n++
			}
		}
		if n != 4 {
			t.Errorf("%d create pods/exec calls, want one per exec (4)", n)
		}
	})
}

// A refused WebSocket exec fails as client-go's WebSocket round tripper
// fails a bad handshake: an UpgradeFailureError carrying the apiserver's
// Status or the kubelet's text; kubectl's fallback executor then tries SPDY,
// which gets the same answer. An exec the WebSocket executor serves is not
// tried again over SPDY.
func TestAWebSocketExecIsRefusedAsTheKubeletRefusesIt(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		w, cs := execWorld(t, apiserver.Admin, false, fakeCLI(map[string]string{}))
		_, _, err := wsExecIn(w, cs, false, "app", "", "get", "x")
		if !streamhttp.IsUpgradeFailure(err) || !strings.Contains(err.Error(), `container not found ("app")`) {
			t.Fatalf("a WebSocket exec into a container not running: %v, want an upgrade failure with the kubelet's text", err)
		}
		_, _, err = wsExecIn(w, cs, true, "app", "", "get", "x")
		if err == nil || !strings.Contains(err.Error(), `container not found ("app")`) {
			t.Fatalf("the fallback executor: %v, want SPDY's answer, the same", err)
		}
		w2, cs2 := execWorld(t, apiserver.Admin, true, fakeCLI(map[string]string{}))
		if out, _, err := wsExecIn(w2, cs2, true, "app", "", "set", "k", "v"); err != nil || out != "ok\n" {
			t.Fatalf("the fallback executor on a running container: %q %v", out, err)
		}
		n := 0
		for _, c := range w2.calls {
			if c.Subresource == "exec" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d exec calls through the fallback executor, want 1 (WebSocket served it)", n)
		}
	})
}

// The exec seam sets an unexported field of client-go's SPDY round tripper
// (the connection it would have dialled); an upgrade that renames it fails
// here first.
func TestTheSPDYRoundTripperKeepsItsConnField(t *testing.T) {
	rt, err := spdycompat.NewRoundTripperWithConfig(spdycompat.RoundTripperConfig{})
	if err != nil {
		t.Fatal(err)
	}
	d := reflect.ValueOf(rt).Elem().FieldByName("delegate")
	if !d.IsValid() || d.Kind() != reflect.Pointer {
		t.Fatalf("apimachinery's spdy.SpdyRoundTripper has no delegate pointer field")
	}
	f := d.Elem().FieldByName("conn")
	if !f.IsValid() || f.Type().String() != "net.Conn" {
		t.Fatalf("k8s.io/streaming's SpdyRoundTripper has no conn net.Conn field")
	}
}

// Port-forwarding is refused with one line that names it and why: client-go's
// PortForwarder forwards from a real local socket. Both of client-go's
// dialers (SPDY, and the WebSocket tunnel kubectl tries first, through the
// fallback dialer) reach the refusal at the upgrade, before any socket is
// opened.
func TestPortForwardIsRefusedNamingItAndWhy(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		w, cs := execWorld(t, apiserver.Admin, true, fakeCLI(map[string]string{}))
		req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name("db-0").SubResource("portforward")
		rt, upgrader, err := spdy.RoundTripperFor(w.cfg)
		if err != nil {
			t.Fatal(err)
		}
		spdyDialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, req.URL())
		wsDialer, err := portforward.NewSPDYOverWebsocketDialer(req.URL(), w.cfg)
		if err != nil {
			t.Fatal(err)
		}
		fallback := portforward.NewFallbackDialer(wsDialer, spdyDialer, func(err error) bool {
			// client-go's WebSocket round tripper fails with k8s.io/streaming's type.
			return streamhttp.IsUpgradeFailure(err) || streamhttp.IsHTTPSProxyError(err)
		})
		for name, d := range map[string]httpstream.Dialer{"spdy": spdyDialer, "fallback": fallback} {
			var out, errOut bytes.Buffer
			pf, err := portforward.New(d, []string{"0:5432"}, make(chan struct{}), make(chan struct{}), &out, &errOut)
			if err != nil {
				t.Fatal(err)
			}
			err = pf.ForwardPorts()
			if err == nil || !strings.Contains(err.Error(), "port-forward (pods/portforward") || !strings.Contains(err.Error(), "real local socket") {
				t.Errorf("%s: ForwardPorts: %v, want one error naming port-forward and why", name, err)
			}
			if strings.Contains(out.String(), "Forwarding from") {
				t.Errorf("%s: a local port was opened: %s", name, out.String())
			}
		}
	})
}
