package apiserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/rbac"
)

// Request describes one API request as the server's filters see it.
type Request struct {
	User        User
	Verb        string // get list create update patch delete deletecollection
	Kind        *Kind
	Subresource string
	Namespace   string
	Name        string // "" for create, list and deletecollection

	// manager is the write's field manager (managerOrUserAgent); applied is
	// true when a server-side apply has already set the managedFields.
	manager string
	applied bool
	// dryRun is a request with dryRun=All: admitted, validated and answered
	// as it would be, nothing stored (dryRun below).
	dryRun bool
}

func (r Request) attributes() rbac.Attributes {
	ns := r.Namespace
	if r.Kind.GVK.GroupKind() == (schema.GroupKind{Kind: "Namespace"}) {
		// A request for namespaces/<n> is "in" namespace <n> for authorization
		// (k8s.io/apiserver request info), so a RoleBinding in <n> applies.
		ns = r.Name
	}
	return rbac.Attributes{
		User: r.User.Name, Groups: r.User.Groups, Verb: r.Verb,
		APIGroup: r.Kind.GVK.Group, APIVersion: r.Kind.GVK.Version,
		Resource: r.Kind.Resource, Subresource: r.Subresource,
		Namespace: ns, Name: r.Name,
	}
}

// admit runs what a real server does before a request reaches storage:
// authorization, then injected faults.
func (s *Server) admit(r Request) error {
	attrs := r.attributes()
	if ok, reason := s.authz.Authorize(attrs); !ok {
		return rbac.Forbidden(attrs, reason)
	}
	return s.injectedError(r)
}

// namespaceLifecycle is the NamespaceLifecycle admission plugin
// (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go) for a
// create of a namespaced object: the namespace must exist and not be terminating.
func (s *Server) namespaceLifecycle(r Request, name string) error {
	nsKind, ok := s.kinds.byGVK(corev1.SchemeGroupVersion.WithKind("Namespace"))
	if !ok {
		return nil
	}
	obj, ok := s.store(nsKind).get(objectKey{"", r.Namespace})
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, r.Namespace)
	}
	ns := obj.(*corev1.Namespace)
	if ns.Status.Phase != corev1.NamespaceTerminating {
		return nil
	}
	err := apierrors.NewForbidden(r.Kind.GroupResource(), name, // the name, or the generateName prefix

		fmt.Errorf("unable to create new content in namespace %s because it is being terminated", r.Namespace))
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    corev1.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", r.Namespace),
		Field:   "metadata.namespace",
	})
	return err
}

// podTopologyLabels is the PodTopologyLabels admission plugin (k8s.io/kubernetes@v1.37.2
// plugin/pkg/admission/podtopologylabels, feature PodTopologyLabelsAdmission, on by
// default) for a pod created with spec.nodeName: the Node's
// topology.kubernetes.io/zone and region labels are copied to the pod (a missing Node
// copies nothing). The model has no binding subresource, its other path.
func (s *Server) podTopologyLabels(obj client.Object) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName == "" {
		return
	}
	nodeKind, ok := s.kinds.byGVK(corev1.SchemeGroupVersion.WithKind("Node"))
	if !ok {
		return
	}
	node, ok := s.store(nodeKind).get(objectKey{"", pod.Spec.NodeName})
	if !ok {
		return
	}
	for _, l := range []string{corev1.LabelTopologyZone, corev1.LabelTopologyRegion} {
		if v, ok := node.GetLabels()[l]; ok {
			if pod.Labels == nil {
				pod.Labels = map[string]string{}
			}
			pod.Labels[l] = v
		}
	}
}

// immortalNamespaces may not be deleted (NamespaceLifecycle admission).
var immortalNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true}

// rbacRules lets the authorizer read the live RBAC objects.
type rbacRules struct{ s *Server }

var (
	roleGVK               = rbacv1.SchemeGroupVersion.WithKind("Role")
	clusterRoleGVK        = rbacv1.SchemeGroupVersion.WithKind("ClusterRole")
	roleBindingGVK        = rbacv1.SchemeGroupVersion.WithKind("RoleBinding")
	clusterRoleBindingGVK = rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding")
)

func (r rbacRules) ClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	objs, _ := r.s.Watcher().List(clusterRoleBindingGVK)
	out := make([]*rbacv1.ClusterRoleBinding, len(objs))
	for i, o := range objs {
		out[i] = o.(*rbacv1.ClusterRoleBinding)
	}
	return out
}

func (r rbacRules) RoleBindings(namespace string) []*rbacv1.RoleBinding {
	objs, _ := r.s.Watcher().List(roleBindingGVK)
	var out []*rbacv1.RoleBinding
	for _, o := range objs {
		if o.GetNamespace() == namespace {
			out = append(out, o.(*rbacv1.RoleBinding))
		}
	}
	return out
}

func (r rbacRules) ClusterRole(name string) *rbacv1.ClusterRole {
	k, ok := r.s.kinds.byGVK(clusterRoleGVK)
	if !ok {
		return nil
	}
	o, _ := r.s.store(k).objects[objectKey{"", name}].(*rbacv1.ClusterRole)
	return o
}

func (r rbacRules) Role(namespace, name string) *rbacv1.Role {
	k, ok := r.s.kinds.byGVK(roleGVK)
	if !ok {
		return nil
	}
	o, _ := r.s.store(k).objects[objectKey{namespace, name}].(*rbacv1.Role)
	return o
}
