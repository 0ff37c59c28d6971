package differential

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// KubeControllerManagerControllers are the controllers the workload comparison runs in
// the real kube-controller-manager (cmd/kube-controller-manager/names
// controller_names.go), the ones models/kube models.
var KubeControllerManagerControllers = []string{"deployment-controller", "replicaset-controller", "job-controller", "statefulset-controller"}

// KubeControllerManager is a kube-controller-manager process running against an
// envtest kube-apiserver.
type KubeControllerManager struct {
	cmd     *exec.Cmd
	dir     string
	logPath string
	exited  chan struct{}
	waitErr error
}

// ErrNoKubeControllerManager is why the workload comparison cannot run: the assets
// directory has kube-apiserver and etcd but no kube-controller-manager.
var ErrNoKubeControllerManager = errors.New("no kube-controller-manager")

// KubeControllerManagerArgs are the flags StartKubeControllerManager passes, beside
// --kubeconfig: the minimal set for a headless controller-manager
// (cmd/kube-controller-manager/app/options/options.go):
//
//   - --controllers: only these controllers (the default "*" would also start the
//     garbage collector, namespace controller, ... which envtest's other suites do not
//     expect, and those needing a cloud provider or signing keys).
//   - --leader-elect=false: no Lease to acquire (GenericControllerManagerConfiguration).
//   - --secure-port=0: no serving, so no serving certificates and no delegated
//     authentication or authorization, which would read the extension-apiserver-
//     authentication ConfigMap (KubeControllerManagerOptions.ApplyTo applies
//     Authentication and Authorization only when the port is not 0).
//   - --use-service-account-credentials=false (the default, written out): every
//     controller uses the kubeconfig's identity, envtest's admin, so no
//     serviceaccount-token controller, no --service-account-private-key-file.
//   - no --cloud-provider: the in-tree providers are gone (Validate refuses them) and
//     none of these controllers needs one.
func KubeControllerManagerArgs(controllers []string) []string {
	return []string{
		"--controllers=" + strings.Join(controllers, ","),
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
		"--v=2",
	}
}

// StartKubeControllerManager starts assets/kube-controller-manager with controllers,
// authenticated by kubeconfig (a kubeconfig file's contents, envtest's admin). Its log
// goes to a temporary file that Stop removes and Log returns.
func StartKubeControllerManager(assets string, kubeconfig []byte, controllers []string) (*KubeControllerManager, error) {
	bin := filepath.Join(assets, "kube-controller-manager")
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("%w in %s (KUBEBUILDER_ASSETS): run `make envtest-assets` (hack/envtest-assets.sh builds it next to kube-apiserver)",
			ErrNoKubeControllerManager, assets)
	}
	dir, err := os.MkdirTemp("", "ctrlsim-kcm-")
	if err != nil {
		return nil, err
	}
	cfg := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(cfg, kubeconfig, 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	logPath := filepath.Join(dir, "kube-controller-manager.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	defer func() { _ = logFile.Close() }() // the process holds its own descriptor
	cmd := exec.Command(bin, append([]string{"--kubeconfig=" + cfg}, KubeControllerManagerArgs(controllers)...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	k := &KubeControllerManager{cmd: cmd, dir: dir, logPath: logPath, exited: make(chan struct{})}
	go func() {
		k.waitErr = cmd.Wait()
		close(k.exited)
	}()
	return k, nil
}

// Exited reports whether the process has exited, and how.
func (k *KubeControllerManager) Exited() (bool, error) {
	select {
	case <-k.exited:
		return true, k.waitErr
	default:
		return false, nil
	}
}

// Log returns the last n lines of the process's log.
func (k *KubeControllerManager) Log(n int) string {
	b, err := os.ReadFile(k.logPath)
	if err != nil {
		return fmt.Sprintf("(reading the log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Stop kills the process and removes its kubeconfig and log.
func (k *KubeControllerManager) Stop() error {
	if ok, _ := k.Exited(); !ok {
		if err := k.cmd.Process.Kill(); err != nil {
			return err
		}
		select {
		case <-k.exited:
		case <-time.After(10 * time.Second):
			return errors.New("kube-controller-manager did not exit 10s after SIGKILL")
		}
	}
	return os.RemoveAll(k.dir)
}
