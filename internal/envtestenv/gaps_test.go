package envtestenv_test

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

func TestAnEnvStartsNoControllerButTheNamespaceController(t *testing.T) {
	var starts []string
	for m := range reflect.TypeFor[*envtestenv.Env]().Methods() {
		if strings.HasPrefix(m.Name, "Start") {
			starts = append(starts, m.Name)
		}
	}
	if want := []string{"StartManager", "StartNamespaceController"}; !slices.Equal(starts, want) {
		t.Errorf("an Env starts %v, want %v: no garbage collector, no Deployment controller", starts, want)
	}
}

// The namespace controller StartNamespaceController runs, in the simulator:
// given ConfigMaps, it deletes a deleted namespace's ConfigMap, not its
// Secret, and finalizes the namespace with the Secret left behind.
func TestTheNamespaceControllerDeletesOnlyTheKindsItIsGiven(t *testing.T) {
	ctx := context.Background()
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: clientgoscheme.Scheme,
		Processes: []process.Spec{{Name: "kube-controller-manager", Setup: func(p *process.Process) error {
			mgr := p.Manager()
			nc := &kube.NamespaceController{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: p.Clock(),
				Content: []client.ObjectList{&corev1.ConfigMapList{}}}
			return nc.SetupWithManager(mgr)
		}}},
		Setup: func(c *cluster.Cluster) error {
			for _, o := range []client.Object{
				&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}},
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "settings"}},
				&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "token"}},
			} {
				if err := c.Admin().Create(ctx, o); err != nil {
					return err
				}
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Second)
	if err := c.Admin().Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	if err := c.Admin().Get(ctx, client.ObjectKey{Namespace: "team", Name: "settings"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("the ConfigMap of the deleted namespace: %v, want NotFound", err)
	}
	if err := c.Admin().Get(ctx, client.ObjectKey{Namespace: "team", Name: "token"}, &corev1.Secret{}); err != nil {
		t.Errorf("the Secret of the deleted namespace: %v, want it left", err)
	}
	if err := c.Admin().Get(ctx, client.ObjectKey{Name: "team"}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Errorf("the deleted namespace: %v, want NotFound (finalized)", err)
	}
}

func TestAUserIsImpersonatedNotAuthenticatedByAToken(t *testing.T) {
	e := &envtestenv.Env{Config: &rest.Config{Host: "https://127.0.0.1:6443", BearerToken: "admin"}}
	u := envtestenv.ServiceAccountUser("shop", "operator")
	cfg := e.ConfigAs(u)
	if cfg.Impersonate.UserName != "system:serviceaccount:shop:operator" || !slices.Equal(cfg.Impersonate.Groups, u.Groups) {
		t.Errorf("impersonating %+v, want the ServiceAccount's identity and groups %+v", cfg.Impersonate, u)
	}
	if cfg.BearerToken != "admin" {
		t.Errorf("the config authenticates with %q, want the admin's credentials, impersonating", cfg.BearerToken)
	}
}
