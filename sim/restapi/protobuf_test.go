package restapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsclientset "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// A request is answered in the first media type of its Accept that
// kube-apiserver serves for it: protobuf for a built-in kind (client-go's
// typed clients ask for it first), JSON where JSON comes first, and JSON for
// a custom resource, which has no protobuf; the metadata client's protobuf
// is the object's PartialObjectMetadata. A protobuf answer decodes to the
// object the JSON answer decodes to.
func TestAnAnswerIsInTheFirstMediaTypeTheClientAcceptsThatTheKindHas(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(w.cfg)
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}},
		Data: map[string]string{"k": "v"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := apiextensionsclientset.NewForConfigOrDie(w.cfg).ApiextensionsV1().CustomResourceDefinitions().Create(ctx, gadgetDefinition(t), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.clk.Step(time.Millisecond)
	if _, err := dynamic.NewForConfigOrDie(w.cfg).Resource(gadgets).Namespace("default").Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g"}, "spec": map[string]any{}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: w.cfg.Transport}
	get := func(path, accept string) (string, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.cfg.Host+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", accept)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header.Get("Content-Type"), body
	}
	scheme := newScheme(t)
	if err := metav1.AddMetaToScheme(scheme); err != nil { // PartialObjectMetadata
		t.Fatal(err)
	}
	codecs := serializer.NewCodecFactory(scheme)
	decode := func(contentType string, body []byte) runtime.Object {
		t.Helper()
		info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), contentType)
		if !ok {
			t.Fatalf("no decoder for %q", contentType)
		}
		obj, _, err := info.Serializer.Decode(body, nil, nil)
		if err != nil {
			t.Fatalf("decoding the %s answer: %v", contentType, err)
		}
		return obj
	}
	const protoFirst, jsonFirst = "application/vnd.kubernetes.protobuf,application/json", "application/json,application/vnd.kubernetes.protobuf"
	for _, path := range []string{"/api/v1/namespaces/default/configmaps/a", "/api/v1/namespaces/default/configmaps", "/api/v1/namespaces/default/configmaps/missing"} {
		pt, pb := get(path, protoFirst)
		jt, jb := get(path, jsonFirst)
		if pt != runtime.ContentTypeProtobuf || jt != runtime.ContentTypeJSON {
			t.Errorf("%s answered %q to a client preferring protobuf and %q to one preferring JSON, want protobuf and JSON", path, pt, jt)
			continue
		}
		if p, j := decode(pt, pb), decode(jt, jb); !reflect.DeepEqual(p, j) {
			t.Errorf("%s: the protobuf answer decodes to\n%#v\nthe JSON answer to\n%#v", path, p, j)
		}
	}
	if ct, _ := get("/apis/example.com/v1/namespaces/default/gadgets/g", protoFirst); ct != runtime.ContentTypeJSON {
		t.Errorf("a custom resource answered %q to a client preferring protobuf, want JSON (it has no protobuf)", ct)
	}
	ct, body := get("/api/v1/namespaces/default/configmaps/a", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json")
	if ct != runtime.ContentTypeProtobuf {
		t.Fatalf("the metadata client's get answered %q, want protobuf", ct)
	}
	if p, ok := decode(ct, body).(*metav1.PartialObjectMetadata); !ok || p.Name != "a" || p.Labels["app"] != "x" {
		t.Errorf("the metadata client's get decodes to %#v, want the ConfigMap's PartialObjectMetadata", decode(ct, body))
	}
	// Asked in JSON first, PartialObjectMetadata is answered in JSON, of a
	// built-in kind and of a custom one (its lists too); asked as JSON with
	// the metadata clause after it, the whole object.
	for path, as := range map[string]string{"/api/v1/namespaces/default/configmaps/a": "PartialObjectMetadata", "/apis/example.com/v1/namespaces/default/gadgets/g": "PartialObjectMetadata", "/api/v1/namespaces/default/configmaps": "PartialObjectMetadataList"} {
		ct, body := get(path, "application/json;as="+as+";g=meta.k8s.io;v=v1,application/json")
		if ct != runtime.ContentTypeJSON {
			t.Errorf("%s asked for PartialObjectMetadata in JSON answered %q", path, ct)
			continue
		}
		var got metav1.TypeMeta
		if err := json.Unmarshal(body, &got); err != nil || got.Kind != as || got.APIVersion != "meta.k8s.io/v1" {
			t.Errorf("%s asked for PartialObjectMetadata in JSON answered %s (%v)", path, body, err)
		}
	}
	if _, body := get("/api/v1/namespaces/default/configmaps/a", "application/json,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"); !strings.Contains(string(body), `"kind":"ConfigMap"`) {
		t.Errorf("asked for JSON first, the ConfigMap answered %s, want the whole object", body)
	}
	// client-go's metadata client itself, on a built-in kind and a custom one.
	md := metadata.NewForConfigOrDie(w.cfg)
	for _, c := range []struct {
		gvr  schema.GroupVersionResource
		name string
	}{{corev1.SchemeGroupVersion.WithResource("configmaps"), "a"}, {gadgets, "g"}} {
		got, err := md.Resource(c.gvr).Namespace("default").Get(ctx, c.name, metav1.GetOptions{})
		if err != nil || got.Name != c.name {
			t.Errorf("the metadata client's get of %s %s: %v %v", c.gvr.Resource, c.name, got, err)
		}
		list, err := md.Resource(c.gvr).Namespace("default").List(ctx, metav1.ListOptions{})
		if err != nil || list.ResourceVersion == "" || !slices.ContainsFunc(list.Items, func(p metav1.PartialObjectMetadata) bool { return p.Name == c.name }) {
			t.Errorf("the metadata client's list of %s: %v %v, want %s in it at a resourceVersion", c.gvr.Resource, list, err, c.name)
		}
	}
}
