package kcm_test

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/kcm"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
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

// seededWorld runs f on a world whose namespaces (the default ones and
// team) got their content before time started (SeedNamespaceContent, as
// kube-controller-manager's identity), with the two controllers hosted.
func seededWorld(t *testing.T, f func(t *testing.T, c *cluster.Cluster)) {
	t.Helper()
	p, err := plan.Parse("seed 7\n")
	if err != nil {
		t.Fatal(err)
	}
	only := func(c kcm.Controller) bool { return c.Name == kcm.ServiceAccount || c.Name == kcm.RootCACertPublisher }
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		o := optionsFor(p, only)()
		o.Wall = wall
		o.Setup = func(c *cluster.Cluster) error {
			if err := c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
				return err
			}
			user := apiserver.Admin
			user.Agent = "kube-controller-manager"
			return kcm.SeedNamespaceContent(ctx, restapi.New(kubeclient.New(c.Server, user, kubeclient.Options{}), c.Server, user.Agent, nil).Config())
		}
		c, err := cluster.New(p, o)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		f(t, c)
	})
}

// A cluster's namespaces have their content from its bootstrap: seeded
// before time starts by the controllers' own sync, every namespace has its
// default ServiceAccount and kube-root-ca.crt ConfigMap at the start, the
// controllers hosted in the run find them and write nothing, and what they
// make for a namespace created later is what the seed holds (data,
// annotations, field manager).
func TestSeededNamespaceContentIsWhatTheControllersMakeAndTheyWriteNoMore(t *testing.T) {
	seededWorld(t, func(t *testing.T, c *cluster.Cluster) {
		for _, ns := range []string{"default", "kube-node-lease", "kube-public", "kube-system", "team"} {
			if sa, cm := namespaceContent(c, ns); sa == nil || cm == nil {
				t.Errorf("namespace %s at the start: default ServiceAccount %v, kube-root-ca.crt %v; want both", ns, sa != nil, cm != nil)
			}
		}
		c.RunFor(5 * time.Second)
		for _, s := range c.Trace.Steps() {
			if s.Process == "kube-controller-manager" && s.RVWritten > 0 {
				t.Errorf("the hosted controllers wrote at %s: %s %s", s.At, s.Op, s.Object)
			}
		}
		if err := c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "late"}}); err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Second)
		seededSA, seededCM := namespaceContent(c, "team")
		madeSA, madeCM := namespaceContent(c, "late")
		if madeSA == nil || madeCM == nil {
			t.Fatalf("namespace late: default ServiceAccount %v, kube-root-ca.crt %v; want both", madeSA != nil, madeCM != nil)
		}
		if !reflect.DeepEqual(seededCM.Data, madeCM.Data) || !reflect.DeepEqual(seededCM.Annotations, madeCM.Annotations) {
			t.Errorf("the seeded kube-root-ca.crt holds %v %v, the one made in the run %v %v", seededCM.Data, seededCM.Annotations, madeCM.Data, madeCM.Annotations)
		}
		for _, pair := range [][2][]metav1.ManagedFieldsEntry{{seededSA.ManagedFields, madeSA.ManagedFields}, {seededCM.ManagedFields, madeCM.ManagedFields}} {
			for _, mf := range pair {
				for i := range mf {
					mf[i].Time = nil // when each was written
				}
			}
			if !reflect.DeepEqual(pair[0], pair[1]) {
				t.Errorf("managed fields: seeded %+v, made in the run %+v", pair[0], pair[1])
			}
		}
		if len(seededCM.ManagedFields) != 1 || seededCM.ManagedFields[0].Manager != "kube-controller-manager" {
			t.Errorf("the seeded kube-root-ca.crt's managed fields are %+v, want kube-controller-manager's", seededCM.ManagedFields)
		}
	})
}
