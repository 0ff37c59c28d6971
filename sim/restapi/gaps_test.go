package restapi_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
)

// kindOf is the kind of a JSON answer.
func kindOf(t *testing.T, raw []byte) string {
	t.Helper()
	var doc struct{ Kind string }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return doc.Kind
}

func TestADeleteKeptByFinalizersAnswersASuccessStatus(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	cs := kubernetes.NewForConfigOrDie(w.cfg)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Finalizers: []string{"example.com/keep"}}}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	raw, err := cs.CoreV1().RESTClient().Delete().Namespace("default").Resource("configmaps").Name("c").Do(ctx).Raw()
	if err != nil || kindOf(t, raw) != "Status" || !strings.Contains(string(raw), `"status":"Success"`) {
		t.Fatalf("delete of an object its finalizer keeps: %s, %v; want a Success Status", raw, err)
	}
}

func TestNoTableOutputAndNoAggregatedDiscovery(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	cs := kubernetes.NewForConfigOrDie(w.cfg)
	ctx := context.Background()
	raw, err := cs.CoreV1().RESTClient().Get().Namespace("default").Resource("configmaps").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").Do(ctx).Raw()
	if err != nil || kindOf(t, raw) != "ConfigMapList" {
		t.Errorf("a list asking for a Table: %v, kind %q; want a ConfigMapList", err, kindOf(t, raw))
	}
	raw, err = cs.Discovery().RESTClient().Get().AbsPath("/apis").
		SetHeader("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList").Do(ctx).Raw()
	if err != nil || kindOf(t, raw) != "APIGroupList" {
		t.Errorf("discovery asking for the aggregated form: %v, kind %q; want an APIGroupList", err, kindOf(t, raw))
	}
}

func TestTheAccessReviewsHaveNoOpenAPIPaths(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	cs := kubernetes.NewForConfigOrDie(w.cfg)
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/openapi/v3/apis/authorization.k8s.io/v1").Do(context.Background()).Raw()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Paths map[string]any }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Paths) != 0 {
		t.Fatalf("authorization.k8s.io/v1 has paths %v, want none (kube-apiserver has the reviews' POST)", doc.Paths)
	}
}

func TestAGroupMissingFromTheSchemeIs404(t *testing.T) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, rbacv1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	clk := clock.New(clock.Epoch)
	server := apiserver.New(apiserver.Options{Scheme: s, Clock: clk,
		Later: func(d time.Duration, f func()) { clk.AfterFunc(d, f) }})
	server.CreateDefaultNamespaces()
	cfg := restapi.New(kubeclient.New(server, apiserver.Admin, kubeclient.Options{}), server, "op", nil).Config()
	cs := kubernetes.NewForConfigOrDie(cfg)
	_, err := cs.AppsV1().Deployments("default").Create(context.Background(),
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}}, metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("a Deployment of a server whose scheme lacks apps: %v, want 404", err)
	}
}
