package ryw_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/ryw"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

// options are the operator's test: its scheme, its manager with main's
// manager.Options (read-your-writes consistency on or off), a seed object,
// the default workload, and the faults read-your-writes is about (see the
// package doc): the process's cache behind its own writes (lag and latency,
// up to 100 ms), and crashes; not a restart onto a lagging apiserver. (A
// stalled watch is left out for time's sake: without read-your-writes the
// operator makes a Secret every few milliseconds for as long as the stall
// lasts, thousands, and the garbage collector's model lists them all at
// every event.)
func options(readYourWrites bool) operatortest.Options {
	return operatortest.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []operatortest.Manager{{Name: "ryw",
			Options: &manager.Options{Client: client.Options{Cache: &client.CacheOptions{
				EnableReadYourWritesConsistency: ptr.To(readYourWrites)}}},
			Setup: func(mgr manager.Manager) error {
				return (&ryw.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr)
			}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web",
			Labels: map[string]string{ryw.AppLabel: "yes"}}}},
		Faults: operatortest.Faults{Classes: []operatortest.FaultKind{operatortest.Lag, operatortest.Latency, operatortest.Crash},
			MaxLag: 100 * time.Millisecond},
		ShrinkRuns: 300,
	}
}

// Without read-your-writes consistency the operator lists its Secrets from a
// cache that has not seen the one it has just made, and makes another: the
// generic oracles catch the second Secret. With it on, the same operator,
// unchanged, holds over 100 plans, and holds on the very plan that caught
// it off (the catch is the stale read's, not a false alarm).
func TestReadYourWritesFixesTheStaleList(t *testing.T) {
	res, err := operatortest.Explore(t, options(false))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught {
		t.Fatalf("without read-your-writes the second Secret was not caught in %d plans", res.Checks)
	}
	t.Logf("without read-your-writes: caught after %d plans by %s: %s", res.Checks, res.Violations[0].Property, res.Minimal)

	file := filepath.Join(t.TempDir(), "stale.plan")
	if err := os.WriteFile(file, []byte(res.Minimal.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("ctrlsim.plan", file); err != nil {
		t.Fatal(err)
	}
	fixed, err := operatortest.Explore(t, options(true))
	flag.Set("ctrlsim.plan", "")
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Caught {
		t.Fatalf("with read-your-writes the plan that caught it off still fails: %v", fixed.Violations)
	}

	res, err = operatortest.Explore(t, options(true))
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught || res.Checks != 100 {
		t.Errorf("with read-your-writes: %+v, want 100 plans and no violation", res)
	}
}
