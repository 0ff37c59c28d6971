package process

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	webhookerrors "k8s.io/apiserver/pkg/admission/plugin/webhook/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/scheduler"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// WebhookConfig is one admission webhook of a MutatingWebhookConfiguration or
// ValidatingWebhookConfiguration: which requests it receives (rules,
// selectors), where it is served (the service and path) and what a failure to
// call it does (failurePolicy, timeoutSeconds).
type WebhookConfig struct {
	// Configuration is the name of the configuration object (kube-apiserver
	// calls mutating webhooks in the order of their configurations' names,
	// then in order within one).
	Configuration string
	Name          string
	Mutating      bool
	Service       types.NamespacedName
	Path          string
	Rules         []admissionregistrationv1.RuleWithOperations
	FailurePolicy admissionregistrationv1.FailurePolicyType
	// TimeoutSeconds is the call's timeout (the v1 default, 10).
	TimeoutSeconds    int32
	NamespaceSelector *metav1.LabelSelector
	ObjectSelector    *metav1.LabelSelector
	// SideEffects is the webhook's sideEffects (v1 requires it; unset, in
	// a manifest, a WebhookConfig or a configuration derived from a
	// registration, it is taken as controller-gen writes it, None): a
	// dry-run request reaching a webhook whose sideEffects are not None or
	// NoneOnDryRun fails with kube-apiserver's 400
	// (TestADryRunCallsOnlyWebhooksWithoutSideEffects).
	SideEffects admissionregistrationv1.SideEffectClass
}

// WebhookConfigsFromYAML reads webhook configurations from YAML documents
// (config/webhook/manifests.yaml as controller-gen writes it from the
// kubebuilder:webhook markers), with the v1 API's defaults: failurePolicy
// Fail, timeoutSeconds 10, matchPolicy Equivalent (not modelled: rules match
// the request's own group and version). Documents of other kinds are refused;
// a webhook given by URL rather than service is refused (nothing serves it).
func WebhookConfigsFromYAML(data []byte) ([]WebhookConfig, error) {
	var out []WebhookConfig
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var raw map[string]any
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		if raw == nil {
			continue
		}
		b, err := json.Marshal(raw)
		if err != nil {
			return nil, err
		}
		switch raw["kind"] {
		case "MutatingWebhookConfiguration":
			var c admissionregistrationv1.MutatingWebhookConfiguration
			if err := json.Unmarshal(b, &c); err != nil {
				return nil, err
			}
			for _, w := range c.Webhooks {
				wc, err := webhookConfig(c.Name, w.Name, true, w.ClientConfig, w.Rules, w.FailurePolicy, w.TimeoutSeconds, w.NamespaceSelector, w.ObjectSelector, w.SideEffects)
				if err != nil {
					return nil, err
				}
				out = append(out, wc)
			}
		case "ValidatingWebhookConfiguration":
			var c admissionregistrationv1.ValidatingWebhookConfiguration
			if err := json.Unmarshal(b, &c); err != nil {
				return nil, err
			}
			for _, w := range c.Webhooks {
				wc, err := webhookConfig(c.Name, w.Name, false, w.ClientConfig, w.Rules, w.FailurePolicy, w.TimeoutSeconds, w.NamespaceSelector, w.ObjectSelector, w.SideEffects)
				if err != nil {
					return nil, err
				}
				out = append(out, wc)
			}
		default:
			return nil, fmt.Errorf("webhook manifests: a %v is not a webhook configuration", raw["kind"])
		}
	}
	return out, nil
}

func webhookConfig(config, name string, mutating bool, cc admissionregistrationv1.WebhookClientConfig, rules []admissionregistrationv1.RuleWithOperations,
	fp *admissionregistrationv1.FailurePolicyType, timeout *int32, ns, obj *metav1.LabelSelector, se *admissionregistrationv1.SideEffectClass) (WebhookConfig, error) {
	if cc.Service == nil {
		return WebhookConfig{}, fmt.Errorf("webhook %q: only webhooks served by a service are modelled (clientConfig.url is not)", name)
	}
	wc := WebhookConfig{Configuration: config, Name: name, Mutating: mutating,
		Service: types.NamespacedName{Namespace: cc.Service.Namespace, Name: cc.Service.Name},
		Path:    "/", Rules: rules, FailurePolicy: admissionregistrationv1.Fail, TimeoutSeconds: 10,
		NamespaceSelector: ns, ObjectSelector: obj}
	if cc.Service.Path != nil {
		wc.Path = *cc.Service.Path
	}
	if fp != nil {
		wc.FailurePolicy = *fp
	}
	if timeout != nil {
		wc.TimeoutSeconds = *timeout
	}
	if se != nil {
		wc.SideEffects = *se
	}
	return wc, nil
}

// Webhooks is the webhook admission of a world (apiserver.WebhookAdmission):
// the configured webhooks, and the handlers the processes' managers register
// on their webhook servers. A webhook is served by the running process that
// registered its path (the first in process order); while none does (the
// process crashed, is restarting, or has not started), a call fails as
// kube-apiserver's fails when the service has no endpoints, and the write
// fails or goes on as its failurePolicy says.
//
// Without configurations (NewWebhooks with derive), each path that
// controller-runtime's webhook builder generates for a served kind
// (/mutate-<group>-<version>-<kind>, /validate-...) is configured as
// kubebuilder scaffolds it on its first registration: operations CREATE and
// UPDATE of the kind, failurePolicy Fail, timeoutSeconds 10, named
// m<kind>-<version>.kb.io and v<kind>-<version>.kb.io, service
// system/webhook-service.
type Webhooks struct {
	server  *apiserver.Server
	configs []WebhookConfig
	derive  bool
	procs   []*Process      // in world order
	derived map[string]bool // paths already configured by derivation
	serving *Process        // the process whose handler runs inline now (a kernel caller)
	uids    int
	calls   int // handler tasks made, for their names
}

// NewWebhooks returns the webhook admission of a world with configs; derive
// derives configurations from registrations instead (see Webhooks).
func NewWebhooks(server *apiserver.Server, configs []WebhookConfig, derive bool) *Webhooks {
	w := &Webhooks{server: server, configs: slices.Clone(configs), derive: derive, derived: map[string]bool{}}
	w.sortConfigs()
	return w
}

func (w *Webhooks) sortConfigs() {
	slices.SortStableFunc(w.configs, func(a, b WebhookConfig) int { return strings.Compare(a.Configuration, b.Configuration) })
}

// Serving reports whether a webhook handler runs inline now, on its caller
// (an admission webhook's kernel caller: serveInline; a conversion
// webhook): its own API calls are refused. A handler running as a task (serveAsTask)
// makes its calls as any task of its process does.
func (w *Webhooks) Serving() bool { return w != nil && w.serving != nil }

func (w *Webhooks) add(p *Process) { w.procs = append(w.procs, p) }

// registered is called when a manager registers path: without
// configurations, a builder path of a served kind is configured.
func (w *Webhooks) registered(path string) {
	if !w.derive || w.derived[path] {
		return
	}
	for _, k := range w.server.Kinds() {
		gvk := k.GVK
		suffix := strings.ReplaceAll(gvk.Group, ".", "-") + "-" + gvk.Version + "-" + strings.ToLower(gvk.Kind)
		var mutating bool
		switch path {
		case "/mutate-" + suffix:
			mutating = true
		case "/validate-" + suffix:
		default:
			continue
		}
		w.derived[path] = true
		prefix, config := "v", "validating-webhook-configuration"
		if mutating {
			prefix, config = "m", "mutating-webhook-configuration"
		}
		w.configs = append(w.configs, WebhookConfig{Configuration: config, Name: prefix + strings.ToLower(gvk.Kind) + "-" + gvk.Version + ".kb.io",
			Mutating: mutating, Service: types.NamespacedName{Namespace: "system", Name: "webhook-service"}, Path: path,
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{gvk.Group}, APIVersions: []string{gvk.Version}, Resources: []string{k.Resource}},
			}},
			FailurePolicy: admissionregistrationv1.Fail, TimeoutSeconds: 10})
		w.sortConfigs()
		return
	}
}

// Mutate implements apiserver.WebhookAdmission.
func (w *Webhooks) Mutate(a apiserver.AdmissionAttributes, obj client.Object) (client.Object, error) {
	for _, c := range w.configs {
		if !c.Mutating || !w.matches(c, a, obj) {
			continue
		}
		resp, err := w.call(c, a, obj)
		if err != nil {
			return nil, err
		}
		if resp == nil {
			continue // failed open
		}
		if !resp.Allowed {
			return nil, webhookerrors.ToStatusErr(c.Name, resp.Result)
		}
		if len(resp.Patch) == 0 {
			continue
		}
		if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
			return nil, apierrors.NewInternalError(errCallingWebhook(c.Name, fmt.Errorf("unsupported patch type %q", ptrString(resp.PatchType))))
		}
		if obj, err = applyJSONPatch(a.Kind.GVK, obj, resp.Patch); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
	}
	return obj, nil
}

// Validate implements apiserver.WebhookAdmission.
func (w *Webhooks) Validate(a apiserver.AdmissionAttributes, obj client.Object) error {
	for _, c := range w.configs {
		if c.Mutating || !w.matches(c, a, obj) {
			continue
		}
		resp, err := w.call(c, a, obj)
		if err != nil {
			return err
		}
		if resp != nil && !resp.Allowed {
			return webhookerrors.ToStatusErr(c.Name, resp.Result)
		}
	}
	return nil
}

// noSideEffects reports whether a webhook of sideEffects se may be called
// for a dry-run request (unset: None, as WebhookConfig says).
func noSideEffects(se admissionregistrationv1.SideEffectClass) bool {
	return se == "" || se == admissionregistrationv1.SideEffectClassNone || se == admissionregistrationv1.SideEffectClassNoneOnDryRun
}

// errCallingWebhook is the error of k8s.io/apiserver's ErrCallingWebhook (its
// package pulls a gRPC client into the build): a failure to talk to a webhook.
func errCallingWebhook(name string, reason error) error {
	return fmt.Errorf("failed calling webhook %q: %w", name, reason)
}

func ptrString(p *admissionv1.PatchType) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

// matches is kube-apiserver's rule, namespace selector and object selector
// matching of a request (matchPolicy Exact: the request's own version).
func (w *Webhooks) matches(c WebhookConfig, a apiserver.AdmissionAttributes, obj client.Object) bool {
	gvk := a.Kind.GVK
	resource := a.Kind.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	ruleOK := false
	for _, r := range c.Rules {
		if has(r.Operations, admissionregistrationv1.OperationType(a.Operation), admissionregistrationv1.OperationAll) &&
			has(r.APIGroups, gvk.Group, "*") && has(r.APIVersions, gvk.Version, "*") && resourceMatches(r.Resources, resource) &&
			scopeMatches(r.Scope, a.Kind.Namespaced) {
			ruleOK = true
			break
		}
	}
	if !ruleOK {
		return false
	}
	if c.ObjectSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(c.ObjectSelector)
		if err != nil {
			return true // a real server refuses such a configuration; call it
		}
		match := obj != nil && sel.Matches(labels.Set(obj.GetLabels()))
		match = match || (a.OldObject != nil && sel.Matches(labels.Set(a.OldObject.GetLabels())))
		if !match {
			return false
		}
	}
	if c.NamespaceSelector != nil && a.Kind.Namespaced {
		sel, err := metav1.LabelSelectorAsSelector(c.NamespaceSelector)
		if err != nil {
			return true
		}
		var ns corev1.Namespace
		_ = w.server.Get(apiserver.Admin, client.ObjectKey{Name: a.Namespace}, &ns)
		if !sel.Matches(labels.Set(ns.Labels)) {
			return false
		}
	}
	return true
}

func has[T comparable](list []T, v, all T) bool {
	return slices.Contains(list, v) || slices.Contains(list, all)
}

func resourceMatches(rules []string, resource string) bool {
	main, sub, _ := strings.Cut(resource, "/")
	for _, r := range rules {
		rm, rs, _ := strings.Cut(r, "/")
		switch {
		case r == "*" || r == "*/*":
			if r == "*/*" || sub == "" {
				return true
			}
		case rm == "*" && rs == sub:
			return true
		case rm == main && (rs == sub || rs == "*"):
			return true
		}
	}
	return false
}

func scopeMatches(scope *admissionregistrationv1.ScopeType, namespaced bool) bool {
	if scope == nil || *scope == admissionregistrationv1.AllScopes {
		return true
	}
	return (*scope == admissionregistrationv1.NamespacedScope) == namespaced
}

// server is the running process serving path, or nil.
func (w *Webhooks) serverOf(path string) (*Process, http.Handler) {
	for _, p := range w.procs {
		if !p.started || p.mgr == nil || p.mgr.webhookSrv == nil {
			continue
		}
		if h := p.mgr.webhookSrv.handler(path); h != nil {
			return p, h
		}
	}
	return nil, nil
}

// call sends the AdmissionReview of a to the webhook c through its
// handler's ServeHTTP (controller-runtime's admission.Webhook decodes it,
// calls the defaulter or validator, and encodes the response), in-process.
// It returns the response; nil and no error when the call failed and
// failurePolicy Ignore lets the request go on; the client's error when it
// failed under failurePolicy Fail.
func (w *Webhooks) call(c WebhookConfig, a apiserver.AdmissionAttributes, obj client.Object) (*admissionv1.AdmissionResponse, error) {
	target := fmt.Sprintf("https://%s.%s.svc:443%s?timeout=%ds", c.Service.Name, c.Service.Namespace, c.Path, c.TimeoutSeconds)
	if a.DryRun && !noSideEffects(c.SideEffects) {
		// The dispatchers' check before a call (webhookerrors.NewDryRunUnsupportedErr),
		// whatever the failure policy.
		return nil, apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", c.Name))
	}
	p, h := w.serverOf(c.Path)
	what := describe(a, obj)
	fail := func(reason error) (*admissionv1.AdmissionResponse, error) {
		callErr := errCallingWebhook(c.Name, fmt.Errorf("failed to call webhook: %w", reason))
		if c.FailurePolicy == admissionregistrationv1.Ignore {
			w.record(p, c, what, "failed open: "+callErr.Error())
			return nil, nil
		}
		w.record(p, c, what, "failed: "+callErr.Error())
		return nil, apierrors.NewInternalError(callErr)
	}
	if h == nil {
		return fail(fmt.Errorf("Post %q: no endpoints available for service %q", target, c.Service.Name))
	}
	review, err := w.review(a, obj)
	if err != nil {
		return nil, apierrors.NewInternalError(errCallingWebhook(c.Name, fmt.Errorf("could not create admission objects: %w", err)))
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	req := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	timeout := time.Duration(c.TimeoutSeconds) * time.Second
	var rec *httptest.ResponseRecorder
	if p.env.Scheduler.Current() == nil {
		rec = w.serveInline(p, h, req, timeout)
	} else {
		rec, err = w.serveAsTask(p, c, what, h, req, timeout)
	}
	if err != nil {
		return fail(fmt.Errorf("Post %q: %w", target, err))
	}
	if rec == nil {
		// kube-apiserver's client gave up at timeoutSeconds.
		return fail(fmt.Errorf("Post %q: %w", target, context.DeadlineExceeded))
	}
	if rec.Code != http.StatusOK {
		return fail(fmt.Errorf("Post %q: the server responded with status %d: %s", target, rec.Code, strings.TrimSpace(rec.Body.String())))
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Response == nil {
		return fail(fmt.Errorf("received invalid webhook response: %v", err))
	}
	resp := out.Response
	for _, warning := range resp.Warnings {
		w.server.Warn(warning) // allowed or denied, as the dispatchers add them
	}
	switch {
	case !resp.Allowed:
		msg := ""
		if resp.Result != nil {
			msg = resp.Result.Message
		}
		w.record(p, c, what, "denied: "+msg)
	case len(resp.Patch) > 0:
		w.record(p, c, what, "allowed, patched "+patchPaths(resp.Patch))
	default:
		w.record(p, c, what, "allowed")
	}
	return resp, nil
}

// serveInline runs the handler on the calling goroutine: the caller is the
// kernel (a workload step, a seed write), which cannot wait for a task. A
// handler that waits then moves the bubble's clock ahead of virtual time
// (wallclock reports it). It returns nil when the handler took longer than
// timeout (the client gave up; the handler's context had no end).
func (w *Webhooks) serveInline(p *Process, h http.Handler, req *http.Request, timeout time.Duration) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	start := p.env.Clock.Now()
	w.serving = p
	func() {
		defer func() { w.serving = nil }()
		h.ServeHTTP(rec, req)
	}()
	if p.env.Clock.Now().Sub(start) > timeout {
		return nil
	}
	return rec
}

// errConnectionLost is what kube-apiserver's client reads when the serving
// process dies (or its handler panics: net/http's server recovers the panic
// and closes the connection) before the answer: the connection ends.
var errConnectionLost = io.EOF

// serveAsTask runs the handler as a task of the serving process, as
// kube-apiserver's call is a request to another pod: the calling task waits
// in virtual time until the handler answers or the timeout passes, whichever
// comes first, and other tasks run meanwhile. At the timeout the client gives
// up: the handler's request context is cancelled (net/http cancels a
// request's context when its client goes away; controller-runtime's webhook
// server does not read the ?timeout= of the URL, so the context has no
// deadline of its own), and the handler runs on as its task until it ends
// (its answer is discarded, and traced as such). A handler whose process
// crashes meanwhile is killed with it, and the caller reads the connection's
// end (EOF) at once; so does one that panics. It returns the answer, nil at
// the timeout, or the connection's error.
func (w *Webhooks) serveAsTask(p *Process, c WebhookConfig, what string, h http.Handler, req *http.Request, timeout time.Duration) (*httptest.ResponseRecorder, error) {
	s, clk := p.env.Scheduler, p.env.Clock
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // the client gives up (or its own caller went away)
	deadline := clk.Now().Add(timeout)
	rec := httptest.NewRecorder()
	var answered, lost, gaveUp bool
	w.calls++
	task := s.Go(p.spec.Name, fmt.Sprintf("%s/webhook#%d", p.spec.Name, w.calls), func() {
		defer func() {
			r := recover()
			if scheduler.IsKilled(r) {
				panic(r)
			}
			// A handler that waited outside the scheduler (time.Sleep, a
			// poll) rejoins before touching the kernel's state.
			s.Current()
			if r != nil {
				lost = true
			} else {
				answered = true
			}
			if gaveUp {
				w.record(p, c, what, "answered after the caller gave up at its deadline (discarded)")
			}
		}()
		h.ServeHTTP(rec, req.WithContext(ctx))
	})
	expired := false
	timer := clk.AfterFunc(timeout, func() { expired = true })
	defer timer.Stop()
	// Warnings of this request's earlier webhooks are its own: requests that
	// other tasks make meanwhile take theirs, not these.
	saved := w.server.TakeWarnings()
	s.WaitUntil(func() bool { return answered || lost || expired || task.Killed() })
	for _, text := range saved {
		w.server.Warn(text)
	}
	switch {
	case answered && !clk.Now().After(deadline):
		return rec, nil
	case lost || task.Killed():
		return nil, errConnectionLost
	}
	gaveUp = true
	return nil, nil
}

// patchPaths are a JSON patch's operations ("add /spec/x"), sorted: the
// order of a patch computed by diffing two documents (controller-runtime's
// PatchResponseFromRaw) follows map iteration.
func patchPaths(patch []byte) string {
	var ops []struct{ Op, Path string }
	if err := json.Unmarshal(patch, &ops); err != nil {
		return "(undecodable patch)"
	}
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = o.Op + " " + o.Path
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

func describe(a apiserver.AdmissionAttributes, obj client.Object) string {
	name := a.Name
	if name == "" && obj != nil {
		name = obj.GetGenerateName() + "*"
	}
	s := a.Operation + " " + a.Kind.GVK.Kind + " "
	if a.Namespace != "" {
		s += a.Namespace + "/"
	}
	return s + name
}

// record traces a webhook call, attributed to the serving process (the
// kernel's "webhook" when none serves).
func (w *Webhooks) record(p *Process, c WebhookConfig, what, result string) {
	step := trace.Step{Op: "webhook " + c.Name, Object: what, Result: result}
	if p != nil {
		p.record(step)
		return
	}
	if len(w.procs) > 0 {
		q := w.procs[0]
		step.At = q.env.Clock.Now().Sub(q.env.Start)
		step.Process = "webhook"
		q.env.Trace.Add(step)
	}
}

// review is the AdmissionReview kube-apiserver sends for a.
func (w *Webhooks) review(a apiserver.AdmissionAttributes, obj client.Object) (*admissionv1.AdmissionReview, error) {
	w.uids++
	gvk := a.Kind.GVK
	gvr := metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: a.Kind.Resource}
	kind := metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
	req := &admissionv1.AdmissionRequest{
		UID:  types.UID("admission-" + strconv.Itoa(w.uids)),
		Kind: kind, Resource: gvr, SubResource: a.Subresource,
		RequestKind: &kind, RequestResource: &gvr, RequestSubResource: a.Subresource,
		Name: a.Name, Namespace: a.Namespace, Operation: admissionv1.Operation(a.Operation),
		UserInfo: authenticationv1.UserInfo{Username: a.User.Name, Groups: a.User.Groups},
		DryRun:   &a.DryRun,
	}
	var dryRun []string
	if a.DryRun {
		dryRun = []string{metav1.DryRunAll}
	}
	var err error
	if obj != nil {
		if req.Object.Raw, err = wireJSON(w.server.Scheme(), gvk, obj); err != nil {
			return nil, err
		}
	}
	if a.OldObject != nil {
		if req.OldObject.Raw, err = wireJSON(w.server.Scheme(), gvk, a.OldObject); err != nil {
			return nil, err
		}
	}
	opts := map[admissionv1.Operation]runtime.Object{
		admissionv1.Create: &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"}, DryRun: dryRun},
		admissionv1.Update: &metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "UpdateOptions"}, DryRun: dryRun},
		admissionv1.Delete: &metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"}, DryRun: dryRun},
	}[req.Operation]
	if req.Options.Raw, err = json.Marshal(opts); err != nil {
		return nil, err
	}
	return &admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: req}, nil
}

// wireJSON is obj as JSON with its apiVersion and kind.
func wireJSON(_ *runtime.Scheme, gvk schema.GroupVersionKind, obj client.Object) ([]byte, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		c := u.DeepCopy()
		c.SetGroupVersionKind(gvk)
		return json.Marshal(c.Object)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
	return json.Marshal(m)
}

// applyJSONPatch applies a mutating webhook's patch to the JSON the webhook
// was sent and decodes the result in obj's form (kube-apiserver decodes the
// patched JSON as it decoded the request).
func applyJSONPatch(gvk schema.GroupVersionKind, obj client.Object, patch []byte) (client.Object, error) {
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, err
	}
	doc, err := wireJSON(nil, gvk, obj)
	if err != nil {
		return nil, err
	}
	patched, err := p.Apply(doc)
	if err != nil {
		return nil, err
	}
	if _, ok := obj.(*unstructured.Unstructured); ok {
		out := &unstructured.Unstructured{}
		if err := out.UnmarshalJSON(patched); err != nil {
			return nil, err
		}
		return out, nil
	}
	out := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(client.Object)
	if err := json.Unmarshal(patched, out); err != nil {
		return nil, err
	}
	out.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return out, nil
}

// webhookServer is the webhook.Server a process's manager hands out: the
// operator's (Options.WebhookServer) or controller-runtime's default one,
// whose registrations it records for Webhooks. It never listens.
type webhookServer struct {
	webhook.Server
	w     *Webhooks
	paths []string
}

func (s *webhookServer) Register(path string, hook http.Handler) {
	s.Server.Register(path, hook)
	s.paths = append(s.paths, path)
	if s.w != nil {
		s.w.registered(path)
	}
}

// handler is the handler registered for path, or nil.
func (s *webhookServer) handler(path string) http.Handler {
	if !slices.Contains(s.paths, path) {
		return nil
	}
	h, pattern := s.WebhookMux().Handler(&http.Request{Method: http.MethodPost, URL: &url.URL{Path: path}})
	if pattern == "" {
		return nil
	}
	return h
}

// errWebhookCall refuses an API call made by a webhook handler that runs
// inline, on its caller: an admission webhook called by a kernel write (a
// workload step, a seed write), or a conversion webhook.
var errWebhookCall = errors.New("ctrlsim: the API calls of a webhook handler run inline (an admission webhook called by a kernel write, or a conversion webhook) are not modelled (known gap of package process)")

// WebhookUnavailable reports whether err is a write refused because a
// webhook could not be called under failurePolicy Fail (its process is
// down): kube-apiserver's 500 "failed calling webhook".
func WebhookUnavailable(err error) bool {
	return apierrors.IsInternalError(err) && strings.Contains(err.Error(), "failed calling webhook")
}
