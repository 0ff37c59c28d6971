package schemaread

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// QueryLabel marks the ConfigMaps the operator answers: each names a kind
// (data "group", "version", "kind") and a field ("path", dotted:
// "spec.replicas").
const QueryLabel = "schema.example.com/query"

// TypeAnnotation is where the field's type goes.
const TypeAnnotation = "schema.example.com/type"

// Reconciler resolves the kind a query names from the OpenAPI v3 document
// and writes the type of its field.
type Reconciler struct {
	Client   client.Client
	Resolver resolver.SchemaResolver
}

// Reconcile answers one query.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Client.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	gvk := schema.GroupVersionKind{Group: cm.Data["group"], Version: cm.Data["version"], Kind: cm.Data["kind"]}
	s, err := r.Resolver.ResolveSchema(gvk)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("failed to get schema for resource %s: %w", strings.ToLower(gvk.Kind), err)
	}
	typ := "unknown"
	for _, f := range strings.Split(cm.Data["path"], ".") {
		p, ok := s.Properties[f]
		if !ok {
			s = nil
			break
		}
		s = &p
	}
	if s != nil && len(s.Type) > 0 {
		typ = s.Type[0]
	}
	if cm.Annotations[TypeAnnotation] == typ {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(cm.DeepCopy())
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[TypeAnnotation] = typ
	return ctrl.Result{}, r.Client.Patch(ctx, &cm, patch)
}

// SetupWithManager builds the resolver over a discovery client of the
// manager's REST config, as an operator's main.go does, and watches query
// ConfigMaps.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Resolver == nil {
		dc, err := discovery.NewDiscoveryClientForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
		if err != nil {
			return err
		}
		r.Resolver = &resolver.ClientDiscoveryResolver{Discovery: dc}
	}
	query := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[QueryLabel] == "true" })
	return ctrl.NewControllerManagedBy(mgr).Named("schema").For(&corev1.ConfigMap{}, builder.WithPredicates(query)).Complete(r)
}
