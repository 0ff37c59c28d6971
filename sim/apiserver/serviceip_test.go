package apiserver_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

func service(name string, edit func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": name}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	if edit != nil {
		edit(s)
	}
	return s
}

func serviceServer(t *testing.T) *apiserver.Server {
	t.Helper()
	s := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clock.New(clock.Epoch)})
	s.CreateDefaultNamespaces()
	if err := s.Create(admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// A headless Service (clusterIP None), as every StatefulSet's governing
// Service is, is accepted with clusterIPs [None]; a ClusterIP Service gets an
// address of the service CIDR in both fields. (The registry's allocation runs
// before the strategy's validation, which requires clusterIPs.)
func TestAHeadlessServiceIsAcceptedAndAClusterIPServiceGetsAnAddress(t *testing.T) {
	s := serviceServer(t)
	db := service("db", func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone })
	web := service("web", nil)
	if err := s.Create(admin, db); err != nil {
		t.Fatalf("headless Service refused: %v", err)
	}
	if err := s.Create(admin, web); err != nil {
		t.Fatal(err)
	}
	if got := db.Spec.ClusterIPs; len(got) != 1 || got[0] != corev1.ClusterIPNone {
		t.Errorf("headless Service's clusterIPs %q, want [None]", got)
	}
	if web.Spec.ClusterIP == "" || len(web.Spec.ClusterIPs) != 1 || web.Spec.ClusterIPs[0] != web.Spec.ClusterIP {
		t.Errorf("ClusterIP Service: clusterIP %q, clusterIPs %q: want one address in both", web.Spec.ClusterIP, web.Spec.ClusterIPs)
	}
	if got := web.Spec.IPFamilies; len(got) != 1 || got[0] != corev1.IPv4Protocol || web.Spec.IPFamilyPolicy == nil || *web.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
		t.Errorf("ClusterIP Service's families %v policy %v, want [IPv4] SingleStack", got, web.Spec.IPFamilyPolicy)
	}
}

// Which address a Service gets does not depend on the order Services are
// made in (the model's stand-in for a random draw), and a deleted Service's
// address and node ports are free again.
func TestAServicesAddressDoesNotDependOnTheOrderServicesAreMade(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	addrs := map[string]string{}
	for _, order := range [][]string{names, {"d", "c", "b", "a"}} {
		s := serviceServer(t)
		for _, n := range order {
			svc := service(n, func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort })
			if err := s.Create(admin, svc); err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(svc.Spec.ClusterIP, " ", svc.Spec.Ports[0].NodePort)
			if want, ok := addrs[n]; ok && want != got {
				t.Errorf("Service %s got %s made in order %v, %s in order %v", n, got, order, want, names)
			}
			addrs[n] = got
		}
		first := service("a", nil)
		if err := s.Get(admin, client.ObjectKeyFromObject(first), first); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(admin, first, nil); err != nil {
			t.Fatal(err)
		}
		again := service("z", func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeNodePort
			s.Spec.ClusterIP = first.Spec.ClusterIP
			s.Spec.Ports[0].NodePort = first.Spec.Ports[0].NodePort
		})
		if err := s.Create(admin, again); err != nil {
			t.Errorf("asking for a deleted Service's address and node port: %v", err)
		}
	}
}
