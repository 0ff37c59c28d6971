package process

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Conversion webhooks, the caller's half: what apiextensions-apiserver's
// webhookConverter (pkg/apiserver/conversion/webhook_converter.go) does when a
// CRD's spec.conversion.strategy is Webhook, against the /convert handler a
// process's manager registered (controller-runtime's conversion.Webhook,
// which ctrl.NewWebhookManagedBy(mgr, &T{}).Complete() registers for a Hub or
// Convertible type). The apiserver model calls it (its Converter, wired by
// sim/cluster) on every read, write and watch event in a version of a
// multi-version CRD other than the storage one (sim/apiserver versions.go).

// conversionTimeout is kube-apiserver's timeout of a conversion webhook call
// (k8s.io/apiserver/pkg/util/webhook defaultRequestTimeout: not configurable).
const conversionTimeout = 30 * time.Second

// Convert converts objs (custom resources of crd, each with its apiVersion)
// to desiredAPIVersion through crd's conversion webhook: the objects already
// in that version are not sent; the others go in one ConversionReview
// (apiextensions.k8s.io/v1) to the handler of the process serving the
// webhook's path; the answer is checked as kube-apiserver checks it (the
// uid, the count, each object's apiVersion, kind, name, namespace and uid),
// and each converted object gets its original metadata back but for its
// labels and annotations. The error is kube-apiserver's text ("conversion
// webhook for <gvk> failed: ..."): a process down is "no endpoints
// available", a handler that takes longer than 30 s of virtual time is
// "context deadline exceeded". Each call is a trace step ("convert <crd>").
func (w *Webhooks) Convert(crd *apiextensionsv1.CustomResourceDefinition, objs []*unstructured.Unstructured, desiredAPIVersion string) ([]*unstructured.Unstructured, error) {
	out := make([]*unstructured.Unstructured, len(objs))
	var send []int
	for i, o := range objs {
		out[i] = o.DeepCopy()
		if o.GetAPIVersion() != desiredAPIVersion {
			send = append(send, i)
		}
	}
	if len(send) == 0 {
		return out, nil
	}
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil || conv.Webhook.ClientConfig == nil || conv.Webhook.ClientConfig.Service == nil {
		return nil, fmt.Errorf("ctrlsim: CRD %s has no conversion webhook served by a service", crd.Name)
	}
	first := objs[send[0]].GroupVersionKind()
	fail := func(err error) error { return fmt.Errorf("conversion webhook for %v failed: %v", first, err) }
	svc := conv.Webhook.ClientConfig.Service
	path := "/"
	if svc.Path != nil {
		path = *svc.Path
	}
	port := int32(443)
	if svc.Port != nil {
		port = *svc.Port
	}
	target := fmt.Sprintf("https://%s.%s.svc:%d%s?timeout=%s", svc.Name, svc.Namespace, port, path, conversionTimeout)
	what := fmt.Sprintf("%d %s to %s", len(send), first.Kind, desiredAPIVersion)
	p, h := w.serverOf(path)
	record := func(result string) {
		w.record(p, WebhookConfig{Name: "conversion " + crd.Name}, what, result)
	}
	if h == nil {
		err := fail(fmt.Errorf("Post %q: no endpoints available for service %q", target, svc.Name))
		record("failed: " + err.Error())
		return nil, err
	}
	w.uids++
	uid := types.UID("conversion-" + strconv.Itoa(w.uids))
	review := apiextensionsv1.ConversionReview{TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"},
		Request: &apiextensionsv1.ConversionRequest{UID: uid, DesiredAPIVersion: desiredAPIVersion}}
	for _, i := range send {
		raw, err := json.Marshal(objs[i].Object)
		if err != nil {
			return nil, err
		}
		review.Request.Objects = append(review.Request.Objects, runtime.RawExtension{Raw: raw})
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, err
	}
	req := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	env := p.env
	start := env.Clock.Now()
	w.serving = p
	func() {
		defer func() { w.serving = nil }()
		h.ServeHTTP(rec, req)
	}()
	env.Scheduler.Current() // rejoin after a handler that waited (see call)
	if env.Clock.Now().Sub(start) > conversionTimeout {
		err := fail(fmt.Errorf("Post %q: %w", target, context.DeadlineExceeded))
		record("failed: " + err.Error())
		return nil, err
	}
	if rec.Code != http.StatusOK {
		err := fail(fmt.Errorf("an error on the server (%q) has prevented the request from succeeding", strings.TrimSpace(rec.Body.String())))
		record("failed: " + err.Error())
		return nil, err
	}
	var resp apiextensionsv1.ConversionReview
	converted, err := func() ([]runtime.RawExtension, error) {
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
			return nil, err
		}
		switch {
		case resp.Response == nil:
			return nil, fmt.Errorf("no response provided")
		case resp.Response.UID != uid:
			return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, resp.Response.UID)
		case resp.Response.Result.Status != metav1.StatusSuccess:
			if resp.Response.Result.Message != "" {
				return nil, fmt.Errorf("%s", resp.Response.Result.Message)
			}
			return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", resp.Response.Result.Status)
		}
		return resp.Response.ConvertedObjects, nil
	}()
	if err != nil {
		err = fail(err)
		record("failed: " + err.Error())
		return nil, err
	}
	if len(converted) != len(send) {
		err := fmt.Errorf("conversion webhook for %v returned %d objects, expected %d", first, len(converted), len(send))
		record("failed: " + err.Error())
		return nil, err
	}
	for n, i := range send {
		c, err := convertedObject(objs[i], converted[n], desiredAPIVersion)
		if err != nil {
			err = fmt.Errorf("conversion webhook for %v returned invalid converted object at index %v: %v", first, n, err)
			record("failed: " + err.Error())
			return nil, err
		}
		out[i] = c
	}
	record("converted")
	return out, nil
}

// convertedObject checks one converted object against its original and
// gives it the original's metadata but for labels and annotations
// (validateConvertedObject and restoreObjectMeta upstream; the labels and
// annotations are not validated here).
func convertedObject(original *unstructured.Unstructured, raw runtime.RawExtension, desired string) (*unstructured.Unstructured, error) {
	c := &unstructured.Unstructured{}
	if err := c.UnmarshalJSON(raw.Raw); err != nil {
		return nil, err
	}
	if got := c.GetAPIVersion(); got != desired {
		return nil, fmt.Errorf("invalid groupVersion (expected %v, received %v)", desired, got)
	}
	if e, a := original.GetKind(), c.GetKind(); e != a {
		return nil, fmt.Errorf("invalid kind (expected %v, received %v)", e, a)
	}
	switch {
	case original.GetName() != c.GetName():
		return nil, fmt.Errorf("must have the same name: %v != %v", original.GetName(), c.GetName())
	case original.GetNamespace() != c.GetNamespace():
		return nil, fmt.Errorf("must have the same namespace: %v != %v", original.GetNamespace(), c.GetNamespace())
	case original.GetUID() != c.GetUID():
		return nil, fmt.Errorf("must have the same UID: %v != %v", original.GetUID(), c.GetUID())
	}
	labels, annotations := c.GetLabels(), c.GetAnnotations()
	md, _ := original.Object["metadata"].(map[string]any)
	c.Object["metadata"] = runtime.DeepCopyJSONValue(md)
	c.SetLabels(labels)
	c.SetAnnotations(annotations)
	return c, nil
}

// Webhooks is the webhook admission and conversion of the process's world.
func (p *Process) Webhooks() *Webhooks { return p.env.Webhooks }
