package restapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	apiextensionsclientset "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	"k8s.io/kube-openapi/pkg/spec3"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
)

var deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

// The resolver of k8s.io/apiserver's CEL type checking (what a resource
// orchestrator uses to type-check expressions over built-in kinds) reads a
// Deployment's schema through the discovery client's OpenAPIV3().Paths()
// and the group version's Schema, unchanged.
func TestADeploymentsSchemaResolvesThroughTheDiscoveryClientsOpenAPIV3(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	dc := discovery.NewDiscoveryClientForConfigOrDie(w.cfg)
	s, err := (&resolver.ClientDiscoveryResolver{Discovery: dc}).ResolveSchema(deploymentGVK)
	if err != nil {
		t.Fatalf("failed to get schema for resource deployment: %v", err)
	}
	replicas := s.Properties["spec"].Properties["replicas"]
	if !replicas.Type.Contains("integer") || replicas.Format != "int32" {
		t.Fatalf("spec.replicas of the resolved Deployment schema = %+v, want an int32 integer", replicas)
	}
	if c := s.Properties["spec"].Properties["template"].Properties["spec"].Properties["containers"]; !c.Type.Contains("array") || c.Items == nil || c.Items.Schema.Properties["image"].Type == nil {
		t.Fatalf("spec.template.spec.containers = %+v, want an array of containers with an image (refs resolved)", c)
	}
	if len(w.calls) != 0 {
		t.Fatalf("OpenAPI requests were %d calls of the process, want none (served as discovery)", len(w.calls))
	}

	// The document itself: kube-apiserver's paths and operations, and the
	// discovery of every served group version.
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"api/v1", "apis/apps/v1", "apis/rbac.authorization.k8s.io/v1", "apis/apiextensions.k8s.io/v1"} {
		if _, ok := paths[p]; !ok {
			t.Fatalf("OpenAPI v3 discovery has no %s: %v", p, keys(paths))
		}
	}
	if u := paths["apis/apps/v1"].(interface{ ServerRelativeURL() string }).ServerRelativeURL(); !strings.HasPrefix(u, "/openapi/v3/apis/apps/v1?hash=") || len(u) != len("/openapi/v3/apis/apps/v1?hash=")+128 {
		t.Fatalf("serverRelativeURL = %q, want /openapi/v3/apis/apps/v1?hash=<SHA-512>", u)
	}
	data, err := paths["apis/apps/v1"].Schema("application/json")
	if err != nil {
		t.Fatal(err)
	}
	var doc spec3.OpenAPI
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Info.Title != "Kubernetes" || doc.Info.Version != restapi.ServerVersion.GitVersion {
		t.Fatalf("info = %+v, want kube-apiserver's", doc.Info)
	}
	item := doc.Paths.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]
	if item == nil || item.Get == nil || item.Get.OperationId != "readAppsV1NamespacedDeployment" || item.Patch == nil || item.Delete == nil {
		t.Fatalf("deployment item path = %+v, want kube-apiserver's operations (readAppsV1NamespacedDeployment, ...)", item)
	}
	if doc.Paths.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status"] == nil || doc.Paths.Paths["/apis/apps/v1/deployments"] == nil {
		t.Fatalf("paths lack the status subresource or the list across namespaces")
	}
	gvks, _ := doc.Components.Schemas["io.k8s.api.apps.v1.Deployment"].Extensions["x-kubernetes-group-version-kind"].([]any)
	if len(gvks) != 1 || gvks[0].(map[string]any)["kind"] != "Deployment" {
		t.Fatalf("Deployment's x-kubernetes-group-version-kind = %v", gvks)
	}
	if gvks, _ := doc.Components.Schemas["io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"].Extensions["x-kubernetes-group-version-kind"].([]any); len(gvks) != 2 {
		t.Fatalf("DeleteOptions' GVKs = %v, want apps/v1's and core v1's only (InstallV3's filter)", gvks)
	}
}

// The v2 swagger is served as protobuf to the discovery client's
// OpenAPISchema, with every built-in kind's definition.
func TestTheOpenAPIV2DocumentIsServedToTheDiscoveryClient(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	dc := discovery.NewDiscoveryClientForConfigOrDie(w.cfg)
	doc, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatal(err)
	}
	if doc.Info.GetTitle() != "Kubernetes" || doc.Swagger != "2.0" {
		t.Fatalf("info %v swagger %q", doc.Info, doc.Swagger)
	}
	if definition(doc, "io.k8s.api.apps.v1.Deployment") == nil || definition(doc, "io.k8s.api.core.v1.ConfigMap") == nil {
		t.Fatal("the v2 document lacks the Deployment or ConfigMap definition")
	}
	if !hasPath(doc, "/api/v1/namespaces/{namespace}/configmaps/{name}") {
		t.Fatal("the v2 document lacks the ConfigMap item path")
	}
}

// A CRD's schema appears in both documents once its CRD is established,
// and goes with it.
func TestACRDsSchemaAppearsInTheOpenAPIDocumentsOnceItIsServed(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	ctx := context.Background()
	dc := discovery.NewDiscoveryClientForConfigOrDie(w.cfg)
	gadget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}
	r := &resolver.ClientDiscoveryResolver{Discovery: dc}
	if _, err := r.ResolveSchema(gadget); err == nil {
		t.Fatal("Gadget's schema resolved before its CRD exists")
	}
	ax := apiextensionsclientset.NewForConfigOrDie(w.cfg)
	if _, err := ax.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, gadgetDefinition(t), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.clk.Step(time.Millisecond) // established
	s, err := r.ResolveSchema(gadget)
	if err != nil {
		t.Fatalf("Gadget's schema once its CRD is served: %v", err)
	}
	size := s.Properties["spec"].Properties["size"]
	if !size.Type.Contains("integer") || size.Default == nil {
		t.Fatalf("spec.size = %+v, want the CRD's integer with its default", size)
	}
	if _, ok := s.Properties["metadata"]; !ok {
		t.Fatal("Gadget's schema lacks metadata (apiextensions' builder adds ObjectMeta)")
	}
	doc, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatal(err)
	}
	if definition(doc, "com.example.v1.Gadget") == nil || definition(doc, "io.k8s.api.apps.v1.Deployment") == nil {
		t.Fatal("the v2 document lacks Gadget or the built-in kinds once the CRD is served")
	}
	if err := ax.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, "gadgets.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	w.clk.Step(apiserver.CRDCleanupPoll)
	if _, err := r.ResolveSchema(gadget); err == nil {
		t.Fatal("Gadget's schema still resolves after its CRD went")
	}
	if doc, err := dc.OpenAPISchema(); err != nil || definition(doc, "com.example.v1.Gadget") != nil {
		t.Fatalf("v2 after the CRD went: %v, want no Gadget", err)
	}
}

// A stale hash is redirected to the current document, as handler3 does; an
// unknown group version is the mux's 404.
func TestAStaleOpenAPIV3HashIsRedirectedToTheCurrentDocument(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	hc := restapi.New(nil, w.server, "op", nil).HTTPClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Get(restapi.Host + "/openapi/v3/apis/apps/v1?hash=00")
	if err != nil {
		t.Fatal(err)
	}
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusMovedPermanently || !strings.HasPrefix(loc, "/openapi/v3/apis/apps/v1?hash=") {
		t.Fatalf("stale hash: %d to %q, want 301 to the current hash", resp.StatusCode, loc)
	}
	resp, err = hc.Get(restapi.Host + loc)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || !json.Valid(body) {
		t.Fatalf("current hash: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, err := hc.Get(restapi.Host + "/openapi/v3/apis/nothing.example/v1"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown group version: %v %v, want 404", resp, err)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func definition(doc *openapi_v2.Document, name string) *openapi_v2.Schema {
	for _, p := range doc.GetDefinitions().GetAdditionalProperties() {
		if p.Name == name {
			return p.Value
		}
	}
	return nil
}

func hasPath(doc *openapi_v2.Document, path string) bool {
	for _, p := range doc.GetPaths().GetPath() {
		if p.Name == path {
			return true
		}
	}
	return false
}
