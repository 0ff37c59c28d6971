package kcm_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/kcm"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// namespaceContent is what the serviceaccount and root-ca-cert-publisher
// controllers keep in namespace ns: its default ServiceAccount and its
// kube-root-ca.crt ConfigMap (each nil while missing).
func namespaceContent(c *cluster.Cluster, ns string) (*corev1.ServiceAccount, *corev1.ConfigMap) {
	sa, cm := &corev1.ServiceAccount{}, &corev1.ConfigMap{}
	if err := c.Get(client.ObjectKey{Namespace: ns, Name: "default"}, sa); err != nil {
		sa = nil
	}
	if err := c.Get(client.ObjectKey{Namespace: ns, Name: "kube-root-ca.crt"}, cm); err != nil {
		cm = nil
	}
	return sa, cm
}

// A new namespace gets its default ServiceAccount and its kube-root-ca.crt
// ConfigMap (the cluster's CA under ca.crt) shortly after it is created, as
// kube-controller-manager's serviceaccount and root-ca-cert-publisher
// controllers make them; deleted, each is made again.
func TestANewNamespaceGetsItsDefaultServiceAccountAndRootCAConfigMap(t *testing.T) {
	inWorld(t, "seed 4\n", func(t *testing.T, c *cluster.Cluster) {
		c.RunFor(5 * time.Second)
		if err := c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
			t.Fatal(err)
		}
		if sa, cm := namespaceContent(c, "team"); sa != nil || cm != nil {
			t.Fatalf("the namespace has a ServiceAccount (%v) or a ConfigMap (%v) at its creation", sa != nil, cm != nil)
		}
		c.RunFor(time.Second)
		sa, cm := namespaceContent(c, "team")
		if sa == nil || cm == nil {
			t.Fatalf("a second after the namespace's creation: default ServiceAccount %v, kube-root-ca.crt %v; want both", sa != nil, cm != nil)
		}
		if cm.Data["ca.crt"] != kcm.RootCA || cm.Annotations["kubernetes.io/description"] == "" {
			t.Errorf("kube-root-ca.crt holds %v, annotations %v; want the cluster's CA and its description", cm.Data, cm.Annotations)
		}
		if err := c.Admin().Delete(ctx, sa); err != nil {
			t.Fatal(err)
		}
		if err := c.Admin().Delete(ctx, cm); err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Second)
		if sa, cm := namespaceContent(c, "team"); sa == nil || cm == nil {
			t.Errorf("a second after their deletion: default ServiceAccount %v, kube-root-ca.crt %v; want both made again", sa != nil, cm != nil)
		}
		for _, ns := range []string{"default", "kube-system", "kube-public"} {
			if sa, cm := namespaceContent(c, ns); sa == nil || cm == nil {
				t.Errorf("namespace %s: default ServiceAccount %v, kube-root-ca.crt %v; want both", ns, sa != nil, cm != nil)
			}
		}
	})
}

// Namespaces created together, under a crash of kube-controller-manager and
// a lagging namespace watch, get their content in the same steps in every
// run.
func TestNamespaceContentDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 31\ncrash process=kube-controller-manager at=3s\nlag process=kube-controller-manager kind=/v1/Namespace max=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	only := func(c kcm.Controller) bool { return c.Name == kcm.ServiceAccount || c.Name == kcm.RootCACertPublisher }
	err = wallclock.CheckDeterminism(t, p, optionsFor(p, only), func(c *cluster.Cluster) {
		for _, name := range []string{"a", "b", "c"} {
			if err := c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
				t.Fatal(err)
			}
		}
		c.RunFor(20 * time.Second)
		for _, name := range []string{"a", "b", "c"} {
			if sa, cm := namespaceContent(c, name); sa == nil || cm == nil {
				t.Errorf("namespace %s: default ServiceAccount %v, kube-root-ca.crt %v; want both", name, sa != nil, cm != nil)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
