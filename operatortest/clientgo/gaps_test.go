package clientgo_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
)

// Once a world has run an operator set up by Setup, utilruntime's error
// handlers are one, the logger, with no backoff, outside every world too,
// for the rest of the binary (client-go's default is two: the logger and a
// 1 ms backoff).
func TestSetupDropsTheErrorBackoffForTheWholeBinary(t *testing.T) {
	file := filepath.Join(t.TempDir(), "none.plan")
	if err := os.WriteFile(file, []byte("seed 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("ctrlsim.plan", file); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("ctrlsim.plan", "")
	o := operatortest.Options{
		Scheme: clientgoscheme.Scheme, Workers: 1,
		Managers: []operatortest.Manager{{Name: "cg", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			<-ctx.Done()
			return nil
		})}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}},
	}
	if _, err := operatortest.Explore(t, o); err != nil {
		t.Fatal(err)
	}
	if n := len(utilruntime.ErrorHandlers); n != 1 {
		t.Errorf("after the exploration, outside its worlds: %d error handlers, want the one Setup left", n)
	}
}
