package process

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/ctrlsim/ctrlsim/sim/restapi"
	"github.com/ctrlsim/ctrlsim/sim/scheduler"
)

// ctrl.GetConfig inside a process.
//
// An operator's main.go, or its Setup, often builds its clients from
// ctrl.GetConfigOrDie() (controller-runtime's config loader: the -kubeconfig
// flag, then KUBECONFIG, then the in-cluster files, then ~/.kube/config)
// rather than from mgr.GetConfig(). That loader is process-global, so the
// simulator serves it through two process-global seams that a world's
// bubble sets for its duration (wallclock.Run): KUBECONFIG names a
// kubeconfig whose server is KubeconfigServer, a plain-HTTP host that
// resolves nowhere; and, since client-go gives a config with no TLS, proxy
// or dialer http.DefaultTransport as its transport, http.DefaultTransport
// routes that host's requests to KubeconfigTransport. The request is then
// the calling process's own: the REST transport of its current incarnation
// (mgr.GetConfig()'s), with its identity, trace, latency, crash points and
// faults. Requests to every other host go where they went.

// KubeconfigServer is the server of the kubeconfig a world's bubble points
// KUBECONFIG at (wallclock.Run).
const KubeconfigServer = "http://" + KubeconfigHost

// KubeconfigHost is KubeconfigServer's host.
const KubeconfigHost = "kubeconfig.ctrlsim.invalid"

// KubeconfigTransport is the REST transport for req of the process whose code is
// calling (a task of it, a goroutine it started, or its Setup in the
// kernel): where a request to KubeconfigServer goes. A caller that is no
// process of a live world (the test itself, a workload step) gets an error
// that says so.
func KubeconfigTransport(req *http.Request) (http.RoundTripper, error) {
	if s := onlyScheduler(); s != nil && s.Joining() {
		// A goroutine the scheduler does not run now: one the operator
		// started, calling in for the first time, is adopted (into the
		// process of its nearest ancestor that is a task: an informer's
		// reflector is started by the informer's own goroutine, which
		// never calls in), and a task that blocked outside rejoins (a
		// worker woken by its workqueue); either then runs as the
		// process's when the kernel picks it. Goroutines that arrive at
		// one settle are ordered by what they ask, the request with its
		// body, as through the process's REST config (restapi's Asking):
		// which of several workers took which item, or which informer a
		// factory started first, is Go's choice; what each asks is the run's.
		s.JoinLineage(restapi.Asking(req, requestBody(req)))
	}
	p := globalOwner()
	if p == nil {
		return nil, fmt.Errorf("ctrlsim: a client built from ctrl.GetConfig (KUBECONFIG names the simulated cluster, %s) was called outside every process of the simulated cluster: only a process's own code reaches the apiserver model through it", KubeconfigServer)
	}
	if p.mgr == nil || !p.started {
		return nil, fmt.Errorf("ctrlsim: %s called the simulated cluster through ctrl.GetConfig while it was not running", p.spec.Name)
	}
	return p.mgr.rest, nil
}

// requestBody is req's body, read through GetBody (req's own is left to
// the transport), or nil.
func requestBody(req *http.Request) []byte {
	if req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return b
}

// onlyScheduler is the scheduler of the live processes if they all share
// one (one world alive, as in every operatortest run), else nil.
func onlyScheduler() *scheduler.Scheduler {
	globalMu.Lock()
	defer globalMu.Unlock()
	var s *scheduler.Scheduler
	for _, p := range globalProcs {
		if s != nil && p.env.Scheduler != s {
			return nil
		}
		s = p.env.Scheduler
	}
	return s
}

// IsKubeconfigRequest reports whether req is for KubeconfigServer.
func IsKubeconfigRequest(req *http.Request) bool {
	return req.URL != nil && strings.EqualFold(req.URL.Host, KubeconfigHost)
}

var _ http.RoundTripper = (*restapi.Transport)(nil)
