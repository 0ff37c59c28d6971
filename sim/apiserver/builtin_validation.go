package apiserver

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"  // apps internal and v1 types, conversions, defaults, declarative validation
	_ "k8s.io/kubernetes/pkg/apis/batch/install" // batch
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // core
	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// This file hosts kube-apiserver's own defaulting, registry strategies and
// validation (k8s.io/kubernetes@v1.37.2) for the built-in kinds below: a body is
// decoded with the v1 defaulters (SetObjectDefaults_*, registered in
// legacyscheme by the groups' install packages), converted to the internal type
// as the registry sees it, prepared (PrepareForCreate) and validated
// (rest.ValidateCreate, rest.ValidateUpdate: the strategy's Validate or
// ValidateUpdate, the common metadata checks and the declarative validation),
// canonicalized, converted back and defaulted again as storage decodes it. A
// refusal is the registry's 422 with kube-apiserver's own causes.

// builtinStrategy is the registry strategy pair of a hosted kind.
type builtinStrategy struct {
	main   rest.RESTCreateUpdateStrategy
	status rest.RESTUpdateStrategy // nil: no status subresource
}

// builtinStrategies are the kinds whose writes run kube-apiserver's registry
// strategy, by group and kind.
var builtinStrategies = map[schema.GroupKind]builtinStrategy{
	{Kind: "Pod"}:                               {pod.Strategy, pod.StatusStrategy},
	{Kind: "PodTemplate"}:                       {podtemplate.Strategy, nil},
	{Kind: "ReplicationController"}:             {replicationcontroller.Strategy, replicationcontroller.StatusStrategy},
	{Kind: "Service"}:                           {service.Strategy, service.StatusStrategy},
	{Kind: "ConfigMap"}:                         {configmap.Strategy, nil},
	{Kind: "Secret"}:                            {secret.Strategy, nil},
	{Group: "apps", Kind: "Deployment"}:         {deployment.Strategy, deployment.StatusStrategy},
	{Group: "apps", Kind: "ReplicaSet"}:         {replicaset.Strategy, replicaset.StatusStrategy},
	{Group: "apps", Kind: "StatefulSet"}:        {statefulset.Strategy, statefulset.StatusStrategy},
	{Group: "apps", Kind: "DaemonSet"}:          {daemonset.Strategy, daemonset.StatusStrategy},
	{Group: "apps", Kind: "ControllerRevision"}: {controllerrevision.Strategy, nil},
	{Group: "batch", Kind: "Job"}:               {job.Strategy, job.StatusStrategy},
	{Group: "batch", Kind: "CronJob"}:           {cronjob.Strategy, cronjob.StatusStrategy},
}

// hosted reports whether obj is a typed object of a kind whose strategy the model
// runs: the v1 Go type legacyscheme registers for k's GVK.
func hosted(k *Kind, obj client.Object) (builtinStrategy, bool) {
	if k.Custom || k.Unstructured() || k.GVK.Version != "v1" {
		return builtinStrategy{}, false
	}
	st, ok := builtinStrategies[k.GVK.GroupKind()]
	if !ok {
		return builtinStrategy{}, false
	}
	gvks, _, err := legacyscheme.Scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 || gvks[0] != k.GVK {
		return builtinStrategy{}, false
	}
	return st, true
}

// defaultBuiltin applies the v1 defaulters to a typed object of a built-in kind
// the model hosts, as kube-apiserver's decoder does to every request body (and to
// what storage returns).
func defaultBuiltin(k *Kind, obj client.Object) {
	if _, ok := hosted(k, obj); ok {
		legacyscheme.Scheme.Default(obj)
	}
}

// requestContext is the request context a strategy sees: namespace and request
// info (declarative validation reads the API version from it).
func requestContext(k *Kind, verb, subresource, namespace, name string) context.Context {
	ctx := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: verb, APIPrefix: apiPrefix(k), APIGroup: k.GVK.Group,
		APIVersion: k.GVK.Version, Namespace: namespace, Resource: k.Resource,
		Subresource: subresource, Name: name,
	})
	return genericapirequest.WithNamespace(ctx, namespace)
}

func apiPrefix(k *Kind) string {
	if k.GVK.Group == "" {
		return "api"
	}
	return "apis"
}

// toInternal converts a v1 object to its internal type.
func toInternal(k *Kind, obj runtime.Object) (runtime.Object, error) {
	in, err := legacyscheme.Scheme.New(k.GVK.GroupKind().WithVersion(runtime.APIVersionInternal))
	if err != nil {
		return nil, err
	}
	if err := legacyscheme.Scheme.Convert(obj, in, nil); err != nil {
		return nil, err
	}
	return in, nil
}

// fromInternal converts an internal object back into the v1 object out, which it
// replaces entirely (a conversion sets only the fields the internal type has: a
// Secret's stringData must not survive it).
func fromInternal(in runtime.Object, out client.Object) error {
	fresh := reflect.New(reflect.TypeOf(out).Elem()).Interface()
	if err := legacyscheme.Scheme.Convert(in, fresh, nil); err != nil {
		return err
	}
	reflect.ValueOf(out).Elem().Set(reflect.ValueOf(fresh).Elem())
	return nil
}

// builtinInvalid is the registry's 422. Validation walks maps (labels,
// annotations, data keys) in Go map order; a run must not depend on it, so the
// causes are listed in field order (then type and message).
// clusterPolicy keeps the validation errors the server's cluster policy
// makes: kube-apiserver's validation refuses a privileged container (and a
// Windows hostProcess one) unless --allow-privileged=true, and reads that
// flag from a process-wide setting (k8s.io/kubernetes/pkg/capabilities, left
// at its default, false); the server drops those refusals unless it refuses
// privileged containers (SetAllowPrivileged).
func (s *Server) clusterPolicy(errs field.ErrorList) field.ErrorList {
	if s.refusePrivileged {
		return errs
	}
	out := errs[:0:0]
	for _, e := range errs {
		if e.Type == field.ErrorTypeForbidden && strings.HasSuffix(e.Detail, "disallowed by cluster policy") {
			continue
		}
		out = append(out, e)
	}
	return out
}

// SetAllowPrivileged is kube-apiserver's --allow-privileged: whether pods
// (and the pod templates of workloads) may run privileged containers. A new
// server allows them, as kubeadm, kind and the managed clusters run
// kube-apiserver (--allow-privileged=true); kube-apiserver's own flag
// default refuses them ("disallowed by cluster policy").
func (s *Server) SetAllowPrivileged(allow bool) { s.refusePrivileged = !allow }

func builtinInvalid(k *Kind, name string, errs field.ErrorList) error {
	sortErrors(errs)
	return errors.NewInvalid(k.GVK.GroupKind(), name, errs)
}

func sortErrors(errs field.ErrorList) {
	key := func(e *field.Error) string { return e.Field + "\x00" + string(e.Type) + "\x00" + e.ErrorBody() }
	for i := 1; i < len(errs); i++ { // insertion sort: stable, lists are short
		for j := i; j > 0 && strings.Compare(key(errs[j-1]), key(errs[j])) > 0; j-- {
			errs[j-1], errs[j] = errs[j], errs[j-1]
		}
	}
}

// beforeCreateBuiltin is rest.BeforeCreate's part after the metadata the server
// sets: the strategy's PrepareForCreate, rest.ValidateCreate and Canonicalize on
// the internal object; obj (v1) is replaced by the result as storage returns it.
func (s *Server) beforeCreateBuiltin(k *Kind, st builtinStrategy, obj client.Object) error {
	in, err := toInternal(k, obj)
	if err != nil {
		return errors.NewInternalError(fmt.Errorf("converting %s to its internal type: %w", k.GVK.Kind, err))
	}
	ctx := requestContext(k, "create", "", obj.GetNamespace(), "")
	st.main.PrepareForCreate(ctx, in)
	if errs := s.clusterPolicy(rest.ValidateCreate(ctx, in, st.main)); len(errs) > 0 {
		return builtinInvalid(k, obj.GetName(), errs)
	}
	st.main.Canonicalize(in)
	return storedForm(k, in, obj)
}

// storedForm writes the internal object in into the v1 object out as a read from
// storage gives it: converted and defaulted.
func storedForm(k *Kind, in runtime.Object, out client.Object) error {
	if err := fromInternal(in, out); err != nil {
		return errors.NewInternalError(fmt.Errorf("converting %s from its internal type: %w", k.GVK.Kind, err))
	}
	out.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	legacyscheme.Scheme.Default(out)
	return nil
}

// validateUpdateBuiltin is rest.BeforeUpdate's validation (rest.ValidateUpdate)
// with the strategy of the subresource ("" or "status"), on the internal forms of
// obj, which the model's prepareForUpdate has prepared, and old.
func (s *Server) validateUpdateBuiltin(k *Kind, st builtinStrategy, subresource string, obj, old client.Object) error {
	strategy := rest.RESTUpdateStrategy(st.main)
	if subresource == "status" {
		strategy = st.status
	}
	if strategy == nil {
		return nil
	}
	in, err := toInternal(k, obj)
	if err != nil {
		return errors.NewInternalError(fmt.Errorf("converting %s to its internal type: %w", k.GVK.Kind, err))
	}
	prev, err := toInternal(k, old)
	if err != nil {
		return errors.NewInternalError(fmt.Errorf("converting %s to its internal type: %w", k.GVK.Kind, err))
	}
	if p, ok := prev.(*api.Pod); ok && subresource == "" && p.Spec.NodeName == "" {
		// The model serves no pods/binding subresource (models' scheduler binds
		// with an update): spec.nodeName set on an unbound pod is validated as if
		// a binding had set it first. kube-apiserver refuses it on update (doc.go,
		// Known gaps).
		p.Spec.NodeName = in.(*api.Pod).Spec.NodeName
	}
	ctx := requestContext(k, "update", subresource, obj.GetNamespace(), obj.GetName())
	if errs := s.clusterPolicy(rest.ValidateUpdate(ctx, in, prev, strategy)); len(errs) > 0 {
		return builtinInvalid(k, obj.GetName(), errs)
	}
	return nil
}
