package kubeclient_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

func TestAnApplyConfigurationWithoutANameFailsBeforeTheCall(t *testing.T) {
	p := newProcess(t, 0)
	err := p.client.Apply(ctx, corev1ac.ConfigMap("", "default"), client.FieldOwner("test"))
	if err == nil || err.Error() != "failed to create apply request: metadata.name must be set" {
		t.Fatalf("apply without a name: %v, want the client's own message", err)
	}
	if len(p.calls) != 0 {
		t.Fatalf("calls %+v, want none", p.calls)
	}
}

func TestGetAndCreateOfASubresourceAreNotServed(t *testing.T) {
	p := newProcess(t, 0)
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "d"}}
	err := p.client.SubResource("scale").Get(ctx, dep, &autoscalingv1.Scale{})
	if err == nil || !strings.Contains(err.Error(), `get of subresource "scale" is not supported`) {
		t.Errorf("get of scale: %v, want not supported", err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p"}}
	err = p.client.SubResource("eviction").Create(ctx, pod, &policyv1.Eviction{})
	if err == nil || !strings.Contains(err.Error(), `create of subresource "eviction" is not supported`) {
		t.Errorf("create of eviction: %v, want not supported", err)
	}
}

// withExtra is an unstructured ConfigMap default/u with a field ConfigMap
// does not have.
func withExtra() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(cmGVK)
	u.SetNamespace("default")
	u.SetName("u")
	u.Object["extra"] = "x"
	return u
}

func TestUnstructuredDropsFieldsTheGoTypeDoesNotHaveAndReadsFromTheCache(t *testing.T) {
	p := newProcess(t, 0)
	if err := p.client.Create(ctx, withExtra()); err != nil {
		t.Fatal(err)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(cmGVK)
	p.calls = nil
	if err := p.client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "u"}, got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Object["extra"]; ok {
		t.Errorf("read back %v, want the field ConfigMap does not have dropped", got.Object)
	}
	if len(p.calls) != 1 || !p.calls[0].Cached {
		t.Errorf("calls %+v, want one, served by the cache", p.calls)
	}
}

func TestFieldValidationStrictIsAcceptedAndIgnored(t *testing.T) {
	p := newProcess(t, 0)
	if err := p.client.Create(ctx, withExtra(), client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
		t.Fatalf("a create with an unknown field and fieldValidation Strict: %v, want it accepted", err)
	}
}

func TestTheRESTMapperIsASnapshotOfTheServedKinds(t *testing.T) {
	s := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clock.New(clock.Epoch)})
	cl := kubeclient.New(s, apiserver.Admin, kubeclient.Options{})
	before := cl.RESTMapper()
	s.InstallCRD(apiservertest.WidgetCRD)
	gk := apiservertest.WidgetGVK.GroupKind()
	if _, err := before.RESTMapping(gk, apiservertest.WidgetGVK.Version); !meta.IsNoMatchError(err) {
		t.Errorf("the mapper taken before the CRD was installed: %v, want no match (it does not reload)", err)
	}
	if _, err := cl.RESTMapper().RESTMapping(gk, apiservertest.WidgetGVK.Version); err != nil {
		t.Errorf("the mapper taken after: %v, want Widget mapped at once", err)
	}
}
