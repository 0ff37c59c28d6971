package restapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// Host is the host name of every in-process config: nothing resolves it, and
// nothing dials it (the transport serves every request itself).
const Host = "https://apiserver.ctrlsim.invalid"

// Transport is an http.RoundTripper that serves the Kubernetes REST API of the
// apiserver model in-process, through a kubeclient.Client: each request is
// one call of that client (its hooks: the process's trace, yield, latency and
// crash points), made as its identity (RBAC) on the server (faults).
type Transport struct {
	c      *kubeclient.Client
	server *apiserver.Server
	name   string              // the process, for error messages
	enter  func(asking string) // before anything else: the scheduler's check of the caller
	codecs *serializer.CodecFactory
	exec   ExecHandlers // SetExec (exec.go)
	feeds  Feeds        // SetFeeds (watch.go)
	settle func()
}

var _ http.RoundTripper = (*Transport)(nil)

// New returns the transport of client c (an uncached client: REST requests
// always reach the server) on server. name names the process in errors. enter,
// if not nil, runs first in every request, before the transport reads any
// state of the server: the scheduler's check of its caller (a Runnable woken
// by a timer of its own rejoins the scheduler there and waits for its turn),
// told what the request asks (its method, URI and body: Asking).
func New(c *kubeclient.Client, server *apiserver.Server, name string, enter func(asking string)) *Transport {
	return &Transport{c: c, server: server, name: name, enter: enter}
}

// Config is a rest.Config served by t: what mgr.GetConfig() returns. QPS is
// -1, as controller-runtime's GetConfig leaves it (no client-side rate limit,
// whose token bucket would wait on the wall clock). WrapTransport serves the
// streaming clients built from it (exec.go).
func (t *Transport) Config() *rest.Config {
	return &rest.Config{Host: Host, Transport: t, QPS: -1, WrapTransport: t.wrap}
}

// HTTPClient is an http.Client served by t: what mgr.GetHTTPClient() returns.
func (t *Transport) HTTPClient() *http.Client { return &http.Client{Transport: t} }

func (t *Transport) codecFactory() *serializer.CodecFactory {
	if t.codecs == nil {
		cf := serializer.NewCodecFactory(t.server.Scheme())
		t.codecs = &cf
	}
	return t.codecs
}

// Asking is what req asks, with its body: its method, URI and body, the
// same in every run that makes it.
func Asking(req *http.Request, body []byte) string {
	return req.Method + " " + req.URL.RequestURI() + " " + string(body)
}

// RoundTrip serves one request. An API error is a response with a
// metav1.Status body and its code, as kube-apiserver answers; an error that is
// not the server's (the process died during the call) is the transport's.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte // (the caller's bytes, read before enter: no state of the server's)
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	if t.enter != nil {
		t.enter(Asking(req, body))
	}
	code, out, err := t.serve(req, body)
	if r, ok := out.(*http.Response); ok && err == nil {
		return r, nil // a watch's stream (watch.go)
	}
	accept := req.Header.Get("Accept")
	if obj, ok := out.(runtime.Object); ok && err == nil && asMetadata(accept) {
		// The metadata client's get, list, patch or delete: kube-apiserver
		// answers PartialObjectMetadata, in protobuf or JSON.
		if m, ok := metadataAnswer(obj); ok {
			out = m
		}
	}
	if prefersProtobuf(accept) {
		if r, ok := t.respondProtobuf(req, code, out, err); ok {
			return r, nil
		}
	}
	return respond(req, code, out, err)
}

// respondProtobuf is respond in protobuf (protobuf.go), where the answer has
// one.
func (t *Transport) respondProtobuf(req *http.Request, code int, out any, err error) (*http.Response, bool) {
	if isPageNotFound(err) {
		return nil, false
	}
	if err != nil {
		if code, out, err = errorResponse(err); err != nil {
			return nil, false
		}
	}
	obj, ok := out.(runtime.Object)
	if !ok {
		return nil, false
	}
	data, ok := t.protobufOf(obj)
	if !ok {
		return nil, false
	}
	return bytesResponse(req, code, runtime.ContentTypeProtobuf, data, ""), true
}

// respond is the answer to req: out with code, or err's Status (a path
// nothing serves is kube-apiserver's plain-text 404).
func respond(req *http.Request, code int, out any, err error) (*http.Response, error) {
	if isPageNotFound(err) {
		return textResponse(req, http.StatusNotFound, "404 page not found\n"), nil
	}
	if err != nil {
		code, out, err = errorResponse(err)
		if err != nil {
			return nil, err
		}
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("ctrlsim: encoding the response to %s %s: %w", req.Method, req.URL.Path, err)
	}
	return bytesResponse(req, code, runtime.ContentTypeJSON, data, ""), nil
}

// errorResponse is the Status kube-apiserver writes for err
// (responsewriters.ErrorNegotiated): its code, and 500 for an error without
// one. Errors the server did not answer (the calling process died) stay
// errors of the transport.
func errorResponse(err error) (int, any, error) {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		if runtime.IsNotRegisteredError(err) {
			st = apierrors.NewInternalError(err)
		} else {
			return 0, nil, err
		}
	}
	s := st.Status()
	s.Kind, s.APIVersion = "Status", "v1"
	if s.Status == "" {
		s.Status = metav1.StatusFailure
	}
	code := int(s.Code)
	if code == 0 {
		code = http.StatusInternalServerError
		s.Code = int32(code)
	}
	return code, &s, nil
}

// notFound is the mux's 404 for a path nothing serves: kube-apiserver's
// not-found handler answers it with http.NotFound's text, "404 page not
// found", not a Status (client-go turns it into a NotFound "the server could
// not find the requested resource" with an UnexpectedServerResponse cause).
func notFound() error {
	return pageNotFound{&apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
		Message: "the server could not find the requested resource", Details: &metav1.StatusDetails{},
	}}}
}

// pageNotFound marks the mux's 404 (notFound).
type pageNotFound struct{ *apierrors.StatusError }

func isPageNotFound(err error) bool {
	var p pageNotFound
	return err != nil && (errors.As(err, &p) || meta.IsNoMatchError(err))
}

// textResponse is a plain-text answer.
func textResponse(req *http.Request, code int, text string) *http.Response {
	r := bytesResponse(req, code, "text/plain; charset=utf-8", []byte(text), "")
	r.Header.Set("X-Content-Type-Options", "nosniff")
	return r
}

// notServed is the error for a request the model does not serve: a 405 that
// names it and says where the gap is documented.
func (t *Transport) notServed(what string) error {
	err := apierrors.NewMethodNotSupported(schema.GroupResource{}, "")
	err.ErrStatus.Message = fmt.Sprintf("ctrlsim: process %s: %s over the REST config is not served by the apiserver model (known gap of package restapi)", t.name, what)
	err.ErrStatus.Details = nil
	return err
}

// target is the resource a request's path names.
type target struct {
	kind      *apiserver.Kind
	namespace string
	name      string
	sub       string
}

func (t *Transport) serve(req *http.Request, body []byte) (int, any, error) {
	path := strings.Trim(req.URL.Path, "/")
	segs := strings.Split(path, "/")
	var gv schema.GroupVersion
	var rest []string
	switch {
	case path == "api" || path == "apis" || path == "version":
		return t.discovery(req, path, schema.GroupVersion{})
	case path == "openapi/v2" || path == "openapi/v3" || strings.HasPrefix(path, "openapi/v3/"):
		r, err := t.openapi(req, path)
		return 0, r, err
	case segs[0] == "api" && len(segs) >= 2:
		gv, rest = schema.GroupVersion{Version: segs[1]}, segs[2:]
	case segs[0] == "apis" && len(segs) >= 3:
		gv, rest = schema.GroupVersion{Group: segs[1], Version: segs[2]}, segs[3:]
	default:
		return 0, nil, notFound()
	}
	if len(rest) == 0 {
		return t.discovery(req, path, gv)
	}
	tg, err := t.resolve(gv, rest)
	if err != nil {
		// Still one call of the process: a request the server answers 404
		// (a kind whose CRD is not established yet), traced by its path.
		call := kubeclient.Call{Verb: verbOf(req.Method, len(rest) == 2 || (len(rest) > 3 && rest[0] == "namespaces")), Object: &metav1.Status{}, Name: req.URL.Path}
		return 0, nil, t.c.Do(call, func() error { return err })
	}
	ctx := req.Context()
	q := req.URL.Query()
	switch req.Method {
	case http.MethodGet:
		if q.Get("watch") == "true" || q.Get("watch") == "1" {
			resp, err := t.watch(req, tg, q)
			if err != nil {
				return 0, nil, err
			}
			return http.StatusOK, resp, nil
		}
		if tg.name == "" {
			if t.feeds != nil && t.settle != nil && first(q, "resourceVersion") == "0" {
				return t.cachedList(tg, q, req.Header.Get("Accept")) // a reflector's list (watch.go)
			}
			return t.list(ctx, tg, q)
		}
		if tg.sub != "" && tg.sub != "status" {
			return 0, nil, t.notServed(fmt.Sprintf("get of %s/%s", tg.kind.GroupResource(), tg.sub))
		}
		obj, err := t.newObject(tg)
		if err != nil {
			return 0, nil, err
		}
		if err := t.c.Get(ctx, client.ObjectKey{Namespace: tg.namespace, Name: tg.name}, obj); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, t.typed(obj, tg.kind.GVK), nil
	case http.MethodPost:
		if tg.name != "" {
			return 0, nil, t.notServed(fmt.Sprintf("create of %s/%s", tg.kind.GroupResource(), tg.sub))
		}
		obj, err := t.decode(req, body, tg)
		if err != nil {
			return 0, nil, err
		}
		copts := dryRun(q)
		if m := q.Get("fieldManager"); m != "" {
			copts = append(copts, client.FieldOwner(m))
		}
		if err := t.c.Create(ctx, obj, copts...); err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, t.typed(obj, tg.kind.GVK), nil
	case http.MethodPut:
		if tg.name == "" {
			return 0, nil, notAllowed(req, tg)
		}
		obj, err := t.decode(req, body, tg)
		if err != nil {
			return 0, nil, err
		}
		var opts []client.UpdateOption
		var sopts []client.SubResourceUpdateOption
		if d := q["dryRun"]; len(d) > 0 {
			opts = append(opts, dryRunOpt(d))
			sopts = append(sopts, dryRunOpt(d))
		}
		if m := q.Get("fieldManager"); m != "" {
			opts = append(opts, client.FieldOwner(m))
			sopts = append(sopts, client.FieldOwner(m))
		}
		switch tg.sub {
		case "":
			err = t.c.Update(ctx, obj, opts...)
		case "status", "finalize":
			err = t.c.SubResource(tg.sub).Update(ctx, obj, sopts...)
		default:
			return 0, nil, t.notServed(fmt.Sprintf("update of %s/%s", tg.kind.GroupResource(), tg.sub))
		}
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, t.typed(obj, tg.kind.GVK), nil
	case http.MethodPatch:
		if tg.name == "" {
			return 0, nil, notAllowed(req, tg)
		}
		obj, err := t.newObject(tg)
		if err != nil {
			return 0, nil, err
		}
		obj.SetNamespace(tg.namespace)
		obj.SetName(tg.name)
		mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
		p := client.RawPatch(types.PatchType(mt), body)
		var opts []client.PatchOption
		var sopts []client.SubResourcePatchOption
		if d := q["dryRun"]; len(d) > 0 {
			opts = append(opts, dryRunOpt(d))
			sopts = append(sopts, dryRunOpt(d))
		}
		if m := q.Get("fieldManager"); m != "" {
			opts = append(opts, client.FieldOwner(m))
			sopts = append(sopts, client.FieldOwner(m))
		}
		if f := q.Get("force"); f != "" {
			force, perr := strconv.ParseBool(f)
			if perr != nil {
				return 0, nil, apierrors.NewBadRequest(fmt.Sprintf("invalid force %q: %v", f, perr))
			}
			opts = append(opts, &client.PatchOptions{Force: &force})
			sopts = append(sopts, &client.SubResourcePatchOptions{PatchOptions: client.PatchOptions{Force: &force}})
		}
		switch tg.sub {
		case "":
			err = t.c.Patch(ctx, obj, p, opts...)
		case "status":
			err = t.c.SubResource(tg.sub).Patch(ctx, obj, p, sopts...)
		default:
			return 0, nil, t.notServed(fmt.Sprintf("patch of %s/%s", tg.kind.GroupResource(), tg.sub))
		}
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, t.typed(obj, tg.kind.GVK), nil
	case http.MethodDelete:
		if tg.sub != "" {
			return 0, nil, notAllowed(req, tg)
		}
		do, err := t.deleteOptions(body, req.Header.Get("Content-Type"), q)
		if err != nil {
			return 0, nil, err
		}
		obj, err := t.newObject(tg)
		if err != nil {
			return 0, nil, err
		}
		if tg.name == "" {
			return t.deleteCollection(ctx, tg, obj, do, q)
		}
		obj.SetNamespace(tg.namespace)
		obj.SetName(tg.name)
		if err := t.c.Delete(ctx, obj, do); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, success(tg), nil
	}
	return 0, nil, notAllowed(req, tg)
}

// notAllowed is the 405 of a method the resource's route does not have.
func notAllowed(req *http.Request, tg target) error {
	return apierrors.NewMethodNotSupported(tg.kind.GroupResource(), strings.ToLower(req.Method))
}

// success is the Status a delete answers with.
func success(tg target) *metav1.Status {
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: tg.name, Group: tg.kind.GVK.Group, Kind: tg.kind.Resource},
	}
}

// resolve maps a path below a group version to a served resource.
func (t *Transport) resolve(gv schema.GroupVersion, rest []string) (target, error) {
	var tg target
	if rest[0] == "namespaces" && len(rest) >= 3 && !(len(rest) == 3 && (rest[2] == "status" || rest[2] == "finalize")) {
		tg.namespace, rest = rest[1], rest[2:]
	}
	if len(rest) > 3 {
		return tg, notFound()
	}
	resource := rest[0]
	if len(rest) > 1 {
		tg.name = rest[1]
	}
	if len(rest) > 2 {
		tg.sub = rest[2]
	}
	for _, k := range t.server.Kinds() {
		if k.GVK.GroupVersion() == gv && k.Resource == resource {
			tg.kind = k
			break
		}
	}
	if tg.kind == nil || (!tg.kind.Namespaced && tg.namespace != "") || (tg.kind.Namespaced && tg.namespace == "" && tg.name != "") {
		return tg, notFound()
	}
	return tg, nil
}

// newObject is an empty object of the resource's kind, in its native form.
func (t *Transport) newObject(tg target) (client.Object, error) {
	return forms.NewNative(t.server.Scheme(), tg.kind.GVK)
}

// typed gives an answer its apiVersion and kind, as the server's encoder
// writes them (the typed client's objects come back without).
func (t *Transport) typed(obj runtime.Object, gvk schema.GroupVersionKind) runtime.Object {
	if _, ok := obj.(runtime.Unstructured); !ok {
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
	return obj
}

// decode reads a request body into the resource's native form, as the
// handler's decoder does, and checks its name and namespace against the path
// (rest.createHandler/updateHandler).
func (t *Transport) decode(req *http.Request, body []byte, tg target) (client.Object, error) {
	obj, err := t.newObject(tg)
	if err != nil {
		return nil, err
	}
	gvk := tg.kind.GVK
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if mt == "" {
		mt = runtime.ContentTypeJSON
	}
	bad := func(err error) error {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, gvk.Kind, err))
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if mt != runtime.ContentTypeJSON {
			return nil, unsupportedMediaType(mt)
		}
		if err := u.UnmarshalJSON(body); err != nil {
			return nil, bad(err)
		}
	} else {
		info, ok := runtime.SerializerInfoForMediaType(t.codecFactory().SupportedMediaTypes(), mt)
		if !ok {
			return nil, unsupportedMediaType(mt)
		}
		if _, _, err := info.Serializer.Decode(body, nil, obj); err != nil {
			return nil, bad(err)
		}
		obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	}
	if tg.name != "" && obj.GetName() != tg.name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", obj.GetName(), tg.name))
	}
	if tg.kind.Namespaced {
		switch ns := obj.GetNamespace(); {
		case ns == "":
			obj.SetNamespace(tg.namespace)
		case ns != tg.namespace:
			return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
	}
	return obj, nil
}

func dryRun(q map[string][]string) []client.CreateOption {
	if d := q["dryRun"]; len(d) > 0 {
		return []client.CreateOption{dryRunOpt(d)}
	}
	return nil
}

// dryRunOpt is a request's dryRun values as the client's option of each
// write (the server refuses any but All, as kube-apiserver's option
// validation does).
type dryRunOpt []string

func (d dryRunOpt) ApplyToCreate(o *client.CreateOptions) { o.DryRun = d }
func (d dryRunOpt) ApplyToUpdate(o *client.UpdateOptions) { o.DryRun = d }
func (d dryRunOpt) ApplyToPatch(o *client.PatchOptions)   { o.DryRun = d }
func (d dryRunOpt) ApplyToSubResourceUpdate(o *client.SubResourceUpdateOptions) {
	o.DryRun = d
}
func (d dryRunOpt) ApplyToSubResourcePatch(o *client.SubResourcePatchOptions) { o.DryRun = d }

// list serves a list request: label and field selectors, limit and continue.
func (t *Transport) list(ctx context.Context, tg target, q map[string][]string) (int, any, error) {
	list, err := forms.NewNativeList(t.server.Scheme(), tg.kind.GVK)
	if err != nil {
		return 0, nil, err
	}
	o := &client.ListOptions{Namespace: tg.namespace}
	if err := selectors(o, first(q, "labelSelector"), first(q, "fieldSelector")); err != nil {
		return 0, nil, err
	}
	if l := first(q, "limit"); l != "" {
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			return 0, nil, apierrors.NewBadRequest(fmt.Sprintf("limit: %v", err))
		}
		o.Limit = n
	}
	o.Continue = first(q, "continue")
	if err := t.c.List(ctx, list, o); err != nil {
		return 0, nil, err
	}
	if _, ok := list.(runtime.Unstructured); !ok {
		list.GetObjectKind().SetGroupVersionKind(tg.kind.GVK.GroupVersion().WithKind(tg.kind.GVK.Kind + "List"))
	}
	return http.StatusOK, list, nil
}

func (t *Transport) deleteCollection(ctx context.Context, tg target, obj client.Object, do *client.DeleteOptions, q map[string][]string) (int, any, error) {
	o := &client.DeleteAllOfOptions{DeleteOptions: *do}
	o.Namespace = tg.namespace
	if err := selectors(&o.ListOptions, first(q, "labelSelector"), first(q, "fieldSelector")); err != nil {
		return 0, nil, err
	}
	if err := t.c.DeleteAllOf(ctx, obj, o); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, success(tg), nil
}

func first(q map[string][]string, key string) string {
	if v := q[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func selectors(o *client.ListOptions, label, field string) error {
	if label != "" {
		ls, err := labels.Parse(label)
		if err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
		}
		o.LabelSelector = ls
	}
	if field != "" {
		fs, err := fields.ParseSelector(field)
		if err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
		o.FieldSelector = fs
	}
	return nil
}

// deleteOptions reads the DeleteOptions of a delete: the body client-go sends,
// or the query parameters.
func (t *Transport) deleteOptions(body []byte, contentType string, q map[string][]string) (*client.DeleteOptions, error) {
	var mo metav1.DeleteOptions
	if len(bytes.TrimSpace(body)) > 0 {
		mt, _, _ := mime.ParseMediaType(contentType)
		if mt == "" {
			mt = runtime.ContentTypeJSON
		}
		info, ok := runtime.SerializerInfoForMediaType(t.codecFactory().SupportedMediaTypes(), mt)
		if !ok {
			return nil, unsupportedMediaType(mt)
		}
		if _, _, err := info.Serializer.Decode(body, &schema.GroupVersionKind{Group: "meta.k8s.io", Version: "v1", Kind: "DeleteOptions"}, &mo); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("decoding DeleteOptions: %v", err))
		}
	}
	if p := first(q, "propagationPolicy"); p != "" && mo.PropagationPolicy == nil {
		pp := metav1.DeletionPropagation(p)
		mo.PropagationPolicy = &pp
	}
	if g := first(q, "gracePeriodSeconds"); g != "" && mo.GracePeriodSeconds == nil {
		n, err := strconv.ParseInt(g, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("gracePeriodSeconds: %v", err))
		}
		mo.GracePeriodSeconds = &n
	}
	if len(q["dryRun"]) > 0 && len(mo.DryRun) == 0 {
		mo.DryRun = q["dryRun"]
	}
	return &client.DeleteOptions{
		GracePeriodSeconds: mo.GracePeriodSeconds,
		Preconditions:      mo.Preconditions,
		PropagationPolicy:  mo.PropagationPolicy,
		DryRun:             mo.DryRun,
	}, nil
}

// unsupportedMediaType is the handler's 415 for a body it cannot decode.
func unsupportedMediaType(mt string) error {
	return apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", schema.GroupResource{}, "", fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json (%s)", mt), 0, false)
}

// verbOf is the API verb of a request's method (named: the path names an object).
func verbOf(method string, named bool) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if named {
			return "delete"
		}
		return "deletecollection"
	}
	if named {
		return "get"
	}
	return "list"
}
