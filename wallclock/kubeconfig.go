package wallclock

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctrlsim/ctrlsim/sim/process"
)

// serveKubeconfig points ctrl.GetConfig, GetConfigOrDie and
// GetConfigWithContext at the simulated cluster for the rest of t (see
// sim/process's kubeconfig.go): KUBECONFIG names a kubeconfig whose server is
// process.KubeconfigServer, and http.DefaultTransport (what client-go gives a
// plain-HTTP config) sends that server's requests to the calling process's
// REST transport and every other request where it went before.
//
// controller-runtime's -kubeconfig flag comes before KUBECONFIG: a test run
// with it would send a process's requests to the cluster it names, so Run
// refuses it with one line. A parallel test (t.Parallel on t or a parent)
// cannot set what the whole process shares: ctrl.GetConfig there is not
// served (operatortest's runs are never parallel: SeedRandom refuses them).
func serveKubeconfig(t *testing.T) {
	t.Helper()
	if f := flag.Lookup("kubeconfig"); f != nil && f.Value.String() != "" {
		t.Fatalf("wallclock: the -kubeconfig flag names %s: ctrl.GetConfig in a simulated process would reach that cluster instead of the simulated one; drop the flag", f.Value.String())
	}
	path, err := kubeconfigFile()
	if err != nil {
		t.Fatalf("wallclock: the kubeconfig of the simulated cluster: %v", err)
	}
	if !setenv(t, "KUBECONFIG", path) {
		return // a parallel test: what the whole process shares is not its to set
	}
	prev := http.DefaultTransport
	http.DefaultTransport = &kubeconfigRouter{next: prev}
	t.Cleanup(func() { http.DefaultTransport = prev })
}

// setenv is t.Setenv, false where t (or a parent) is parallel, where
// t.Setenv panics.
func setenv(t *testing.T, key, value string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	t.Setenv(key, value)
	return true
}

// kubeconfigRouter sends requests for process.KubeconfigServer to the calling
// process and others to next.
type kubeconfigRouter struct{ next http.RoundTripper }

func (r *kubeconfigRouter) RoundTrip(req *http.Request) (*http.Response, error) {
	if !process.IsKubeconfigRequest(req) {
		return r.next.RoundTrip(req)
	}
	rt, err := process.KubeconfigTransport(req)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return rt.RoundTrip(req)
}

// Kubeconfig is the path of the kubeconfig file that names the simulated
// cluster (the one KUBECONFIG names in a world's bubble): a client built from
// it (clientcmd.BuildConfigFromFlags("", path), ctrl.GetConfig) in a
// process's code, or in a goroutine it started, however deep, makes that
// process's calls. The file is written once per machine, under a name its
// bytes fix, and is the same for every world: the server it names routes a
// request to the calling process (sim/process's kubeconfig.go).
func Kubeconfig() (string, error) { return kubeconfigFile() }

// kubeconfigFile is a kubeconfig naming the simulated cluster, in the
// machine's temporary directory under a name that its bytes fix: every world
// of every test binary shares the one file (written to a temporary name and
// renamed into place, so a reader never sees part of it).
var kubeconfigFile = sync.OnceValues(func() (string, error) {
	sum := sha256.Sum256([]byte(kubeconfig))
	path := filepath.Join(os.TempDir(), "ctrlsim-kubeconfig-"+hex.EncodeToString(sum[:8]))
	if b, err := os.ReadFile(path); err == nil && string(b) == kubeconfig {
		return path, nil
	}
	f, err := os.CreateTemp(os.TempDir(), "ctrlsim-kubeconfig-*.tmp")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(kubeconfig)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return path, nil
})

// kubeconfig names process.KubeconfigServer as its one cluster, with a user
// that has no credentials (the process's identity is its own).
const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: ctrlsim
  cluster:
    server: ` + process.KubeconfigServer + `
contexts:
- name: ctrlsim
  context:
    cluster: ctrlsim
    user: ctrlsim
current-context: ctrlsim
users:
- name: ctrlsim
  user: {}
`
