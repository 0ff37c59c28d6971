package restapi

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	restful "github.com/emicklei/go-restful/v3"
	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"google.golang.org/protobuf/proto"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdbuilder "k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/endpoints"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	utilopenapi "k8s.io/apiserver/pkg/util/openapi"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/common/restfuladapter"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// This file serves /openapi/v2 and /openapi/v3 as kube-apiserver serves
// them. Built-in kinds: one go-restful WebService per group version whose
// routes are templated as k8s.io/apiserver's APIInstaller templates a
// resource's (registerResourceHandlers: operations, docs, parameters,
// produced types), built into documents by kube-openapi's builders with
// kube-apiserver's configuration (its compiled definitions,
// k8s.io/kubernetes/pkg/generated/openapi, without disabled features; the
// DefinitionNamer's x-kubernetes-group-version-kind; title "Kubernetes",
// version ServerVersion): v2 is routes.OpenAPI.InstallV2 (one swagger, its
// defaults pruned), v3 InstallV3 (one document per group version, the
// cross-registered meta kinds' GVKs filtered). Custom kinds: apiextensions'
// own builder (BuildOpenAPIV2 with its controller's options, defaults
// pruned, merged into the static swagger with MergeSpecs; BuildOpenAPIV3
// merged per group version with MergeSpecsV3), so the documents follow the
// CRDs the server serves at the request. v3 is served as handler3 serves it:
// the discovery document of group versions with each one's
// serverRelativeURL and hash (the SHA-512 of its JSON), JSON or protobuf by
// Accept, and a stale hash redirected (301) to the current one.
//
// Cost: the built-in documents are built on first use and shared by every
// server of the process (a world that never asks pays nothing); a custom
// kind's documents are kept by the content of its definition, and the
// merged ones by the set of their parts, in a small cache.

const (
	mimeV2Proto           = "com.github.proto-openapi.spec.v2.v1.0+protobuf"
	mimeV2ProtoDeprecated = "com.github.proto-openapi.spec.v2@v1.0+protobuf"
	mimeV3Proto           = "com.github.proto-openapi.spec.v3.v1.0+protobuf"
	mimeV3ProtoDeprecated = "com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

// openapi answers a GET of /openapi/v2, /openapi/v3 or /openapi/v3/<group
// version path>. Like discovery, it is read from the server's kinds without
// being a call of the process.
func (t *Transport) openapi(req *http.Request, p string) (*http.Response, error) {
	if req.Method != http.MethodGet {
		return respond(req, 0, nil, notFound())
	}
	switch {
	case p == "openapi/v2":
		doc, err := t.openAPIV2()
		if err != nil {
			return nil, err
		}
		return negotiate(req, doc, mimeV2Proto, mimeV2ProtoDeprecated)
	case p == "openapi/v3":
		docs, err := t.openAPIV3()
		if err != nil {
			return nil, err
		}
		disco := handler3.OpenAPIV3Discovery{Paths: map[string]handler3.OpenAPIV3DiscoveryGroupVersion{}}
		for _, d := range docs {
			disco.Paths[d.path] = handler3.OpenAPIV3DiscoveryGroupVersion{ServerRelativeURL: serverRelativeURL(d.path, d.doc.etag)}
		}
		data, err := json.Marshal(disco) // a map's keys are sorted
		if err != nil {
			return nil, err
		}
		return bytesResponse(req, http.StatusOK, "application/json", data, etagOf(data)), nil
	}
	gvPath := strings.TrimPrefix(p, "openapi/v3/")
	docs, err := t.openAPIV3()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(docs, func(d gvDoc) bool { return d.path == gvPath })
	if i < 0 {
		return respond(req, 0, nil, notFound())
	}
	doc := docs[i].doc
	if hash := req.URL.Query().Get("hash"); hash != "" && hash != doc.etag {
		u := serverRelativeURL(gvPath, doc.etag)
		r := bytesResponse(req, http.StatusMovedPermanently, "text/html; charset=utf-8", nil, "")
		r.Header.Set("Location", u)
		return r, nil
	}
	return negotiate(req, doc, mimeV3Proto, mimeV3ProtoDeprecated)
}

// negotiate answers doc as JSON or protobuf by the request's Accept, as
// kube-openapi's handlers do (406 when neither is acceptable).
func negotiate(req *http.Request, doc *openAPIDoc, proto, protoDeprecated string) (*http.Response, error) {
	accept := req.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	for _, clause := range strings.Split(accept, ",") {
		mt := strings.TrimSpace(strings.SplitN(clause, ";", 2)[0])
		typ, sub, _ := strings.Cut(mt, "/")
		if typ != "application" && typ != "*" {
			continue
		}
		switch sub {
		case "json", "*":
			return bytesResponse(req, http.StatusOK, "application/json", doc.json, doc.etag), nil
		case proto, protoDeprecated:
			data, err := doc.protobuf()
			if err != nil {
				return nil, err
			}
			return bytesResponse(req, http.StatusOK, "application/"+proto, data, doc.etag), nil
		}
	}
	return bytesResponse(req, http.StatusNotAcceptable, "text/plain; charset=utf-8", nil, ""), nil
}

func bytesResponse(req *http.Request, code int, contentType string, data []byte, etag string) *http.Response {
	r := &http.Response{
		Status: strconv.Itoa(code) + " " + http.StatusText(code), StatusCode: code,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": []string{contentType}},
		Body:          io.NopCloser(bytes.NewReader(data)),
		ContentLength: int64(len(data)),
		Request:       req,
	}
	if etag != "" {
		r.Header.Set("Etag", strconv.Quote(etag))
	}
	return r
}

func serverRelativeURL(gvPath, etag string) string {
	u := url.URL{Path: path.Join("/openapi/v3", gvPath), RawQuery: url.Values{"hash": []string{etag}}.Encode()}
	return u.String()
}

func etagOf(data []byte) string { return fmt.Sprintf("%X", sha512.Sum512(data)) }

// openAPIDoc is one built document: its JSON, its etag, and its protobuf
// made on first use.
type openAPIDoc struct {
	json  []byte
	etag  string
	v3    bool
	once  sync.Once
	proto []byte
	err   error
}

func newDoc(v any, v3 bool) (*openAPIDoc, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &openAPIDoc{json: data, etag: etagOf(data), v3: v3}, nil
}

func (d *openAPIDoc) protobuf() ([]byte, error) {
	d.once.Do(func() {
		var m proto.Message
		if d.v3 {
			m, d.err = openapi_v3.ParseDocument(d.json)
		} else {
			m, d.err = openapi_v2.ParseDocument(d.json)
		}
		if d.err == nil {
			d.proto, d.err = proto.MarshalOptions{Deterministic: true}.Marshal(m)
		}
	})
	return d.proto, d.err
}

// gvDoc is the v3 document of one group version, named by its path
// ("api/v1", "apis/apps/v1").
type gvDoc struct {
	path string
	doc  *openAPIDoc
}

// servedGroupVersions is the server's kinds by group version, in the order
// of their first kind; each group version is either built in or custom (a
// custom kind in a built-in group version is left out of its documents).
func (t *Transport) servedGroupVersions() (gvs []schema.GroupVersion, kinds map[schema.GroupVersion][]*apiserver.Kind) {
	kinds = map[schema.GroupVersion][]*apiserver.Kind{}
	for _, k := range t.server.Kinds() {
		gv := k.GVK.GroupVersion()
		ks, ok := kinds[gv]
		if !ok {
			gvs = append(gvs, gv)
		}
		if len(ks) > 0 && ks[0].Custom != k.Custom {
			continue
		}
		kinds[gv] = append(ks, k)
	}
	return gvs, kinds
}

// openAPIV3 is the v3 document of each group version the server serves,
// sorted by path.
func (t *Transport) openAPIV3() ([]gvDoc, error) {
	gvs, kinds := t.servedGroupVersions()
	out := make([]gvDoc, 0, len(gvs))
	for _, gv := range gvs {
		ks := kinds[gv]
		var doc *openAPIDoc
		var err error
		if ks[0].Custom {
			doc, err = customV3(gv, ks)
		} else {
			doc, err = builtinV3(gv, ks)
		}
		if err != nil {
			return nil, fmt.Errorf("ctrlsim: process %s: building the OpenAPI v3 document of %s: %w", t.name, gv, err)
		}
		out = append(out, gvDoc{path: gvPath(gv), doc: doc})
	}
	slices.SortFunc(out, func(a, b gvDoc) int { return strings.Compare(a.path, b.path) })
	return out, nil
}

// openAPIV2 is the swagger of every kind the server serves.
func (t *Transport) openAPIV2() (*openAPIDoc, error) {
	gvs, kinds := t.servedGroupVersions()
	var builtins, customs []*apiserver.Kind
	for _, gv := range gvs {
		if ks := kinds[gv]; ks[0].Custom {
			customs = append(customs, ks...)
		} else {
			builtins = append(builtins, ks...)
		}
	}
	doc, err := mergedV2(builtins, customs)
	if err != nil {
		return nil, fmt.Errorf("ctrlsim: process %s: building the OpenAPI v2 document: %w", t.name, err)
	}
	return doc, nil
}

func gvPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// docCache holds built documents by the content they are built from: the
// built-in ones for the process, the others (custom kinds' and merged ones)
// up to a bound, past which they are dropped and built again on demand.
var docCache = struct {
	sync.Mutex
	builtin map[string]*docEntry
	derived map[string]*docEntry
}{builtin: map[string]*docEntry{}, derived: map[string]*docEntry{}}

const derivedDocs = 16

type docEntry struct {
	once sync.Once
	v    any
	err  error
}

// cached is the value built by build for key, built once (concurrent callers
// of one key wait for the first).
func cached[V any](builtin bool, key string, build func() (V, error)) (V, error) {
	docCache.Lock()
	m := docCache.derived
	if builtin {
		m = docCache.builtin
	}
	e, ok := m[key]
	if !ok {
		if !builtin && len(m) >= derivedDocs {
			clear(m)
		}
		e = &docEntry{}
		m[key] = e
	}
	docCache.Unlock()
	e.once.Do(func() { e.v, e.err = build() })
	if e.err != nil {
		var zero V
		return zero, e.err
	}
	return e.v.(V), nil
}

// kindsKey is the text of the parts of kinds that their built-in documents
// depend on.
func kindsKey(kinds []*apiserver.Kind) string {
	var b strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&b, "%s|%s|%t|%t;", k.GVK, k.Resource, k.Namespaced, k.Status)
	}
	return b.String()
}

// crdKey is the text a custom kind's documents depend on: its definition
// and version.
func crdKey(k *apiserver.Kind) (string, error) {
	data, err := json.Marshal(k.CRDDefinition().Spec)
	if err != nil {
		return "", err
	}
	sum := sha512.Sum512(data)
	return fmt.Sprintf("%s@%x", k.GVK.Version, sum[:16]), nil
}

// kubeAPIServer is kube-apiserver's OpenAPI configuration
// (pkg/controlplane/apiserver's BuildGenericConfig): its compiled
// definitions without disabled features, the DefinitionNamer of its schemes.
var kubeAPIServer = sync.OnceValues(func() (*kubeOpenAPI, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, apiregistrationv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	namer := openapinamer.NewDefinitionNamer(scheme)
	defs := utilopenapi.GetOpenAPIDefinitionsWithoutDisabledFeatures(generatedopenapi.GetOpenAPIDefinitions)
	info := func() *spec.Info {
		return &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: ServerVersion.GitVersion}}
	}
	k := &kubeOpenAPI{scheme: scheme}
	k.v2 = func() *common.Config {
		return &common.Config{
			ProtocolList:          []string{"https"},
			IgnorePrefixes:        []string{},
			Info:                  info(),
			DefaultResponse:       &spec.Response{ResponseProps: spec.ResponseProps{Description: "Default Response."}},
			GetOperationIDAndTags: openapinamer.GetOperationIDAndTags,
			GetDefinitionName:     namer.GetDefinitionName,
			GetDefinitions:        defs,
		}
	}
	v3defs := defs(func(name string) spec.Ref {
		defName, _ := namer.GetDefinitionName(name)
		return spec.MustCreateRef("#/components/schemas/" + common.EscapeJsonPointer(defName))
	})
	k.v3 = func() *common.OpenAPIV3Config {
		return &common.OpenAPIV3Config{
			IgnorePrefixes:        []string{},
			Info:                  info(),
			DefaultResponse:       &spec3.Response{ResponseProps: spec3.ResponseProps{Description: "Default Response."}},
			GetOperationIDAndTags: openapinamer.GetOperationIDAndTags,
			GetDefinitionName:     namer.GetDefinitionName,
			GetDefinitions:        defs,
			Definitions:           v3defs,
		}
	}
	return k, nil
})

type kubeOpenAPI struct {
	scheme *runtime.Scheme
	v2     func() *common.Config // a fresh config per build (the builders write into it)
	v3     func() *common.OpenAPIV3Config
}

// builtinV3 is the v3 document of a built-in group version, as InstallV3
// builds it.
func builtinV3(gv schema.GroupVersion, kinds []*apiserver.Kind) (*openAPIDoc, error) {
	return cached(true, "v3 "+kindsKey(kinds), func() (*openAPIDoc, error) { return buildBuiltinV3(gv, kinds) })
}

// buildMu serializes the builds of built-in documents: kube-openapi's v3
// builder writes each definition's extensions into the maps of the shared
// definitions (and InstallV3's filter then narrows them), as kube-apiserver
// builds its group versions one after the other; a document is marshalled
// before the next build.
var buildMu sync.Mutex

func buildBuiltinV3(gv schema.GroupVersion, kinds []*apiserver.Kind) (*openAPIDoc, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	k, err := kubeAPIServer()
	if err != nil {
		return nil, err
	}
	ws, err := webService(k.scheme, gv, kinds)
	if err != nil {
		return nil, err
	}
	s, err := builder3.BuildOpenAPISpecFromRoutes(restfuladapter.AdaptWebServices([]*restful.WebService{ws}), k.v3())
	if err != nil {
		return nil, err
	}
	filterScopedGVKs(s, gv)
	return newDoc(s, true)
}

// builtinV2 is the swagger of built-in kinds, as InstallV2 builds it.
func builtinV2(kinds []*apiserver.Kind) (*spec.Swagger, error) {
	return cached(true, "v2 "+kindsKey(kinds), func() (*spec.Swagger, error) { return buildBuiltinV2(kinds) })
}

func buildBuiltinV2(kinds []*apiserver.Kind) (*spec.Swagger, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	k, err := kubeAPIServer()
	if err != nil {
		return nil, err
	}
	var wss []*restful.WebService
	var gv schema.GroupVersion
	var group []*apiserver.Kind
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		ws, err := webService(k.scheme, gv, group)
		wss = append(wss, ws)
		group = nil
		return err
	}
	for _, kd := range kinds {
		if kd.GVK.GroupVersion() != gv {
			if err := flush(); err != nil {
				return nil, err
			}
			gv = kd.GVK.GroupVersion()
		}
		group = append(group, kd)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	s, err := builder.BuildOpenAPISpecFromRoutes(restfuladapter.AdaptWebServices(wss), k.v2())
	if err != nil {
		return nil, err
	}
	s.Definitions = handler.PruneDefaults(s.Definitions)
	return s, nil
}

// customV3 is the v3 document of a custom group version: each kind's
// BuildOpenAPIV3, merged as apiextensions' openapiv3 controller merges them.
func customV3(gv schema.GroupVersion, kinds []*apiserver.Kind) (*openAPIDoc, error) {
	specs := make([]*spec3.OpenAPI, 0, len(kinds))
	key := "v3"
	for _, k := range kinds {
		ck, err := crdKey(k)
		if err != nil {
			return nil, err
		}
		s, err := cached(false, "v3 crd "+ck, func() (*spec3.OpenAPI, error) {
			return crdbuilder.BuildOpenAPIV3(k.CRDDefinition(), k.GVK.Version, crdbuilder.Options{V2: false, IncludeSelectableFields: true})
		})
		if err != nil {
			continue // left out, as apiextensions' controller leaves out a CRD it cannot build
		}
		key += " " + ck
		specs = append(specs, s)
	}
	return cached(false, key, func() (*openAPIDoc, error) {
		s, err := crdbuilder.MergeSpecsV3(specs...)
		if err != nil {
			return nil, err
		}
		return newDoc(s, true)
	})
}

// mergedV2 is the swagger of builtins with customs merged in, as
// apiextensions' openapi controller merges them (each custom kind's
// BuildOpenAPIV2, defaults pruned, MergeSpecs).
func mergedV2(builtins, customs []*apiserver.Kind) (*openAPIDoc, error) {
	static, err := builtinV2(builtins)
	if err != nil {
		return nil, err
	}
	if len(customs) == 0 {
		return cached(true, "v2 doc "+kindsKey(builtins), func() (*openAPIDoc, error) { return newDoc(static, false) })
	}
	key := "v2 " + kindsKey(builtins)
	specs := make([]*spec.Swagger, 0, len(customs))
	for _, k := range customs {
		ck, err := crdKey(k)
		if err != nil {
			return nil, err
		}
		s, err := cached(false, "v2 crd "+ck, func() (*spec.Swagger, error) {
			s, err := crdbuilder.BuildOpenAPIV2(k.CRDDefinition(), k.GVK.Version, crdbuilder.Options{V2: true, IncludeSelectableFields: true})
			if err != nil {
				return nil, err
			}
			s.Definitions = handler.PruneDefaults(s.Definitions)
			return s, nil
		})
		if err != nil {
			continue // left out, as apiextensions' controller leaves out a CRD it cannot build
		}
		key += " " + ck
		specs = append(specs, s)
	}
	return cached(false, key, func() (*openAPIDoc, error) {
		merged := &spec.Swagger{}
		for _, s := range specs {
			var err error
			if merged, err = crdbuilder.MergeSpecs(merged, s); err != nil {
				return nil, err
			}
		}
		out, err := crdbuilder.MergeSpecs(static, merged)
		if err != nil {
			return nil, err
		}
		return newDoc(out, false)
	})
}

// filterScopedGVKs is InstallV3's narrowing of the GVKs of the meta kinds
// every group registers (WatchEvent, DeleteOptions) to the document's group
// version and core v1 (k8s.io/apiserver/pkg/server/routes/openapi.go).
func filterScopedGVKs(s *spec3.OpenAPI, gv schema.GroupVersion) {
	if s == nil || s.Components == nil {
		return
	}
	for _, sc := range s.Components.Schemas { // lint:order-independent each schema on its own
		if sc == nil {
			continue
		}
		gvks, ok := sc.Extensions["x-kubernetes-group-version-kind"].([]any)
		if !ok || len(gvks) <= 1 {
			continue
		}
		first, _ := gvks[0].(map[string]any)
		if kind, _ := first["kind"].(string); kind != "WatchEvent" && kind != "DeleteOptions" {
			continue
		}
		var filtered []any
		for _, item := range gvks {
			m, _ := item.(map[string]any)
			g, _ := m["group"].(string)
			v, _ := m["version"].(string)
			if (g == gv.Group && v == gv.Version) || (g == "" && v == "v1") {
				filtered = append(filtered, item)
			}
		}
		if len(filtered) > 0 {
			sc.Extensions["x-kubernetes-group-version-kind"] = filtered
		} else {
			delete(sc.Extensions, "x-kubernetes-group-version-kind")
		}
	}
}

// Media types of a built-in group (its serializers: JSON, YAML, protobuf)
// and of its watch streams.
var (
	builtinMediaTypes = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}
	streamMediaTypes  = []string{"application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"}
)

const prettyDoc = "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget)."

// webService is the go-restful WebService of a built-in group version with
// the routes k8s.io/apiserver's APIInstaller registers for each kind (the
// verbs the model serves: get, list, create, update, patch, delete,
// deletecollection, watch) and its status and namespaces/finalize
// subresources.
func webService(scheme *runtime.Scheme, gv schema.GroupVersion, kinds []*apiserver.Kind) (*restful.WebService, error) {
	root := "/" + gvPath(gv)
	ws := new(restful.WebService)
	ws.Path(root).Doc("API at " + root).Consumes("*/*").ApiVersion(gv.String())
	ws.Produces(all()...)
	for _, k := range kinds {
		obj, err := scheme.New(k.GVK)
		if err != nil {
			return nil, err
		}
		list, err := scheme.New(k.GVK.GroupVersion().WithKind(k.GVK.Kind + "List"))
		if err != nil {
			continue // not a listable resource (Binding, TokenReview, the option kinds): no paths (doc.go)
		}
		r := installer{ws: ws, gvk: k.GVK, kind: k.GVK.Kind, obj: obj, list: list, namespaced: k.Namespaced}
		r.resource(k.Resource, "")
		if k.Status {
			r.resource(k.Resource, "status")
		}
		if k.GVK.GroupKind() == (schema.GroupKind{Kind: "Namespace"}) {
			r.resource(k.Resource, "finalize")
		}
		if r.err != nil {
			return nil, r.err
		}
	}
	return ws, nil
}

// installer templates one resource's routes as registerResourceHandlers
// does.
type installer struct {
	ws         *restful.WebService
	gvk        schema.GroupVersionKind
	kind       string
	obj, list  runtime.Object
	namespaced bool
	err        error
}

type action struct {
	verb          string // the installer's request method: GET, LIST, POST, PUT, PATCH, DELETE, DELETECOLLECTION, WATCH, WATCHLIST
	path          string
	allNamespaces bool
}

func (r *installer) resource(resource, sub string) {
	item, coll := resource+"/{name}", resource
	if r.namespaced {
		item, coll = "namespaces/{namespace}/"+item, "namespaces/{namespace}/"+coll
	}
	if sub != "" {
		item += "/" + sub
	}
	var actions []action
	switch sub {
	case "":
		actions = []action{
			{"LIST", coll, false}, {"POST", coll, false}, {"DELETECOLLECTION", coll, false}, {"WATCHLIST", "watch/" + coll, false},
			{"GET", item, false}, {"PUT", item, false}, {"PATCH", item, false}, {"DELETE", item, false}, {"WATCH", "watch/" + item, false},
		}
		if r.namespaced {
			actions = append(actions, action{"LIST", resource, true}, action{"WATCHLIST", "watch/" + resource, true})
		}
	case "status":
		actions = []action{{"GET", item, false}, {"PUT", item, false}, {"PATCH", item, false}}
	case "finalize":
		actions = []action{{"PUT", item, false}}
	}
	for _, a := range actions {
		r.route(a, sub)
	}
}

func (r *installer) route(a action, sub string) {
	ws, kind := r.ws, r.kind
	namespaced, suffix := "", ""
	if r.namespaced {
		namespaced = "Namespaced"
	}
	if a.allNamespaces {
		namespaced, suffix = "", "ForAllNamespaces"
	}
	subTitle := cases.Title(language.English).String(sub)
	status, watchEvent := &metav1.Status{}, &metav1.WatchEvent{}
	var rb *restful.RouteBuilder
	params := func(obj any, excluded ...string) {
		if err := endpoints.AddObjectParams(ws, rb, obj, excluded...); err != nil && r.err == nil {
			r.err = err
		}
	}
	article := endpoints.GetArticleForNoun(kind, " ")
	switch a.verb {
	case "GET":
		doc := "read the specified " + kind
		if sub != "" {
			doc = "read " + sub + " of the specified " + kind
		}
		rb = ws.GET(a.path).Doc(doc).Operation("read"+namespaced+kind+subTitle+suffix).
			Produces(builtinMediaTypes...).Returns(http.StatusOK, "OK", r.obj).Writes(r.obj)
	case "LIST":
		rb = ws.GET(a.path).Doc("list or watch objects of kind "+kind).Operation("list"+namespaced+kind+subTitle+suffix).
			Produces(all()...).Returns(http.StatusOK, "OK", r.list).Writes(r.list)
		params(&metav1.ListOptions{})
	case "PUT":
		doc := "replace the specified " + kind
		if sub != "" {
			doc = "replace " + sub + " of the specified " + kind
		}
		rb = ws.PUT(a.path).Doc(doc).Operation("replace"+namespaced+kind+subTitle+suffix).
			Produces(builtinMediaTypes...).Returns(http.StatusOK, "OK", r.obj).Returns(http.StatusCreated, "Created", r.obj).
			Reads(r.obj).Writes(r.obj)
		params(&metav1.UpdateOptions{})
	case "PATCH":
		doc := "partially update the specified " + kind
		if sub != "" {
			doc = "partially update " + sub + " of the specified " + kind
		}
		rb = ws.PATCH(a.path).Doc(doc).
			Consumes(string(types.JSONPatchType), string(types.MergePatchType), string(types.StrategicMergePatchType), string(types.ApplyYAMLPatchType)).
			Operation("patch"+namespaced+kind+subTitle+suffix).
			Produces(builtinMediaTypes...).Returns(http.StatusOK, "OK", r.obj).Returns(http.StatusCreated, "Created", r.obj).
			Reads(metav1.Patch{}).Writes(r.obj)
		params(&metav1.PatchOptions{})
	case "POST":
		rb = ws.POST(a.path).Doc("create"+article+kind).Operation("create"+namespaced+kind+subTitle+suffix).
			Produces(builtinMediaTypes...).Returns(http.StatusOK, "OK", r.obj).Returns(http.StatusCreated, "Created", r.obj).
			Returns(http.StatusAccepted, "Accepted", r.obj).Reads(r.obj).Writes(r.obj)
		params(&metav1.CreateOptions{})
	case "DELETE":
		rb = ws.DELETE(a.path).Doc("delete"+article+kind).Operation("delete"+namespaced+kind+subTitle+suffix).
			Produces(builtinMediaTypes...).Writes(status).Returns(http.StatusOK, "OK", status).Returns(http.StatusAccepted, "Accepted", status)
		rb.Reads(&metav1.DeleteOptions{})
		rb.ParameterNamed("body").Required(false)
		params(&metav1.DeleteOptions{})
	case "DELETECOLLECTION":
		rb = ws.DELETE(a.path).Doc("delete collection of "+kind).Operation("deletecollection"+namespaced+kind+subTitle+suffix).
			Produces(builtinMediaTypes...).Writes(status).Returns(http.StatusOK, "OK", status)
		rb.Reads(&metav1.DeleteOptions{})
		rb.ParameterNamed("body").Required(false)
		params(&metav1.DeleteOptions{})
		params(&metav1.ListOptions{}, "watch", "allowWatchBookmarks")
	case "WATCH":
		rb = ws.GET(a.path).Doc("watch changes to an object of kind "+kind+". deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.").
			Operation("watch"+namespaced+kind+subTitle+suffix).Produces(all()...).
			Returns(http.StatusOK, "OK", watchEvent).Writes(watchEvent)
		params(&metav1.ListOptions{})
	case "WATCHLIST":
		rb = ws.GET(a.path).Doc("watch individual changes to a list of "+kind+". deprecated: use the 'watch' parameter with a list operation instead.").
			Operation("watch"+namespaced+kind+subTitle+"List"+suffix).Produces(all()...).
			Returns(http.StatusOK, "OK", watchEvent).Writes(watchEvent)
		params(&metav1.ListOptions{})
	}
	rb.To(func(*restful.Request, *restful.Response) {}).Param(ws.QueryParameter("pretty", prettyDoc))
	if strings.Contains(a.path, "{namespace}") {
		rb.Param(ws.PathParameter("namespace", "object name and auth scope, such as for teams and projects").DataType("string"))
	}
	if strings.Contains(a.path, "{name}") {
		rb.Param(ws.PathParameter("name", "name of the "+kind).DataType("string"))
	}
	rb.Metadata(endpoints.RouteMetaGVK, metav1.GroupVersionKind{Group: r.gvk.Group, Version: r.gvk.Version, Kind: r.gvk.Kind})
	rb.Metadata(endpoints.RouteMetaAction, strings.ToLower(a.verb))
	ws.Route(rb)
}

func all() []string { return append(slices.Clone(builtinMediaTypes), streamMediaTypes...) }
