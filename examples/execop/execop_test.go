package execop_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/execop"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := execop.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// appCLI is the test's fake of the operand's CLI: it keeps the config in
// the container's files. `app-cli get-config` prints it, `app-cli
// set-config V` stores V; anything else is a usage error (exit 2).
func appCLI(_ context.Context, r operatortest.ExecRequest) operatortest.ExecResult {
	c := r.Command
	switch {
	case len(c) == 2 && c[0] == "app-cli" && c[1] == "get-config":
		return operatortest.ExecResult{Stdout: []byte(r.Files["config"] + "\n")}
	case len(c) == 3 && c[0] == "app-cli" && c[1] == "set-config":
		r.Files["config"] = c[2]
		return operatortest.ExecResult{Stdout: []byte("config set\n")}
	}
	return operatortest.ExecResult{Stderr: []byte("usage: app-cli get-config | set-config VALUE\n"), ExitCode: 2}
}

// configApplied: at rest, every App whose pod runs has its spec's config in
// that pod (what app-cli holds), whatever its status claims; and no App
// claims a generation its pod does not run.
var configApplied = operatortest.Property{Name: "config-applied", Check: func(h *operatortest.History) error {
	var apps execop.AppList
	if err := h.List(&apps); err != nil {
		return err
	}
	for _, app := range apps.Items {
		var pod corev1.Pod
		if err := h.Get(client.ObjectKey{Namespace: app.Namespace, Name: app.Name + "-0"}, &pod); err != nil || !pod.DeletionTimestamp.IsZero() || !runs(&pod) {
			continue
		}
		files := h.ContainerFiles(pod.Namespace, pod.Name, execop.Container)
		if got := files["config"]; got != app.Spec.Config {
			return fmt.Errorf("App %s/%s (generation %d, status.appliedGeneration %d) wants config %q; app-cli in its pod holds %q",
				app.Namespace, app.Name, app.Generation, app.Status.AppliedGeneration, app.Spec.Config, got)
		}
	}
	return nil
}}

func runs(pod *corev1.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == execop.Container {
			return cs.State.Running != nil
		}
	}
	return false
}

func options(buggy bool) operatortest.Options {
	return operatortest.Options{
		Scheme: scheme,
		CRDs:   [][]byte{execop.CRD},
		Managers: []operatortest.Manager{{Name: "execop", Setup: func(mgr manager.Manager) error {
			return (&execop.Reconciler{Client: mgr.GetClient(), Buggy: buggy}).SetupWithManager(mgr)
		}}},
		Objects: []client.Object{
			&execop.App{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cache"}, Spec: execop.AppSpec{Config: "maxmemory=64mb"}},
		},
		Exec:       map[string]operatortest.ExecHandler{execop.Image: appCLI},
		Properties: []operatortest.Property{configApplied},
		ShrinkRuns: 30,
	}
}

// The operator execs app-cli in its StatefulSet's pod once it runs, through
// client-go's SPDY executor on the manager's REST config, and holds under
// the generic oracles and its property with default Options: the workload
// edits, deletes and re-creates the App, and plans draw exec failures and
// timeouts, crashes and cache lag.
func TestTheOperatorAppliesItsConfigByExec(t *testing.T) {
	operatortest.Run(t, options(false))
}

// The twin records status.appliedGeneration before the exec and then trusts
// it: a failed exec (or a crash between the two) is never retried, and
// app-cli in the pod never gets the config. Nothing in the API objects
// shows it; config-applied does.
func TestRecordingTheGenerationBeforeTheExecIsCaught(t *testing.T) {
	o := options(true)
	o.Expect = "config-applied"
	operatortest.Run(t, o)
}
