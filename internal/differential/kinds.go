package differential

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
)

// kind is what the operations know of one kind: how to build its objects and the
// content and status that a version number v stands for.
type kind struct {
	name       string
	namespaced bool
	status     bool // has the status subresource
	newObj     func() client.Object
	newList    func() client.ObjectList
	// content sets the kind's content (data, spec, rules...) for version v.
	content func(o client.Object, v int)
	// contentPatch is a patch of the content to version v: a merge (and strategic
	// merge) patch fragment of top-level fields, and the JSON patch operations.
	contentMerge func(ns string, v int) map[string]any
	contentJSON  func(ns string, v int) []map[string]any
	// setStatus sets the status for version v; nil without a status.
	setStatus   func(o client.Object, v int)
	statusMerge func(v int) map[string]any
}

// Kind names, as operations print them.
const (
	ConfigMap   = "ConfigMap"
	Secret      = "Secret"
	Deployment  = "Deployment"
	Widget      = "Widget"
	Role        = "Role"
	RoleBinding = "RoleBinding"
	Namespace   = "Namespace"
)

// KindNames lists the kinds operations act on.
var KindNames = []string{ConfigMap, Secret, Deployment, Widget, Role, RoleBinding, Namespace}

var kinds = map[string]*kind{
	ConfigMap: {
		name: ConfigMap, namespaced: true,
		newObj:  func() client.Object { return &corev1.ConfigMap{} },
		newList: func() client.ObjectList { return &corev1.ConfigMapList{} },
		content: func(o client.Object, v int) { o.(*corev1.ConfigMap).Data = map[string]string{"k": value(v)} },
		contentMerge: func(_ string, v int) map[string]any {
			return map[string]any{"data": map[string]any{"k": value(v)}}
		},
		contentJSON: func(_ string, v int) []map[string]any {
			return []map[string]any{{"op": "add", "path": "/data", "value": map[string]any{"k": value(v)}}}
		},
	},
	Secret: {
		name: Secret, namespaced: true,
		newObj:  func() client.Object { return &corev1.Secret{} },
		newList: func() client.ObjectList { return &corev1.SecretList{} },
		content: func(o client.Object, v int) { o.(*corev1.Secret).Data = map[string][]byte{"k": []byte(value(v))} },
		contentMerge: func(_ string, v int) map[string]any {
			return map[string]any{"data": map[string]any{"k": base64.StdEncoding.EncodeToString([]byte(value(v)))}}
		},
		contentJSON: func(_ string, v int) []map[string]any {
			return []map[string]any{{"op": "replace", "path": "/data/k", "value": base64.StdEncoding.EncodeToString([]byte(value(v)))}}
		},
	},
	Deployment: {
		name: Deployment, namespaced: true, status: true,
		newObj:  func() client.Object { return &appsv1.Deployment{} },
		newList: func() client.ObjectList { return &appsv1.DeploymentList{} },
		content: func(o client.Object, v int) { o.(*appsv1.Deployment).Spec = DeploymentSpec(v) },
		contentMerge: func(_ string, v int) map[string]any {
			return map[string]any{"spec": map[string]any{"replicas": replicas(v)}}
		},
		contentJSON: func(_ string, v int) []map[string]any {
			return []map[string]any{
				{"op": "replace", "path": "/spec/replicas", "value": replicas(v)},
				{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": image(v)},
			}
		},
		setStatus: func(o client.Object, v int) {
			o.(*appsv1.Deployment).Status = appsv1.DeploymentStatus{ObservedGeneration: int64(v), Replicas: replicas(v)}
		},
		statusMerge: func(v int) map[string]any {
			return map[string]any{"status": map[string]any{"observedGeneration": v, "replicas": replicas(v)}}
		},
	},
	Widget: {
		name: Widget, namespaced: true, status: true,
		newObj:  func() client.Object { return &apiservertest.Widget{} },
		newList: func() client.ObjectList { return &apiservertest.WidgetList{} },
		content: func(o client.Object, v int) {
			o.(*apiservertest.Widget).Spec = apiservertest.WidgetSpec{Size: v, Color: color(v)}
		},
		// Widget patches carry no zero values: a real server stores custom resources
		// as JSON, where an explicit zero is a change (see Tolerances.CustomResourceJSONStorage).
		contentMerge: func(_ string, v int) map[string]any {
			return map[string]any{"spec": nonZero(map[string]any{"size": v, "color": color(v)})}
		},
		contentJSON: func(_ string, v int) []map[string]any {
			return []map[string]any{{"op": "add", "path": "/spec/color", "value": color(v)}}
		},
		setStatus: func(o client.Object, v int) {
			o.(*apiservertest.Widget).Status = apiservertest.WidgetStatus{Phase: color(v), ObservedGeneration: int64(v)}
		},
		statusMerge: func(v int) map[string]any {
			return map[string]any{"status": nonZero(map[string]any{"phase": color(v), "observedGeneration": v})}
		},
	},
	Role: {
		name: Role, namespaced: true,
		newObj:  func() client.Object { return &rbacv1.Role{} },
		newList: func() client.ObjectList { return &rbacv1.RoleList{} },
		content: func(o client.Object, v int) { o.(*rbacv1.Role).Rules = Rules(v) },
		contentMerge: func(_ string, v int) map[string]any {
			return map[string]any{"rules": asJSON(Rules(v))}
		},
		contentJSON: func(_ string, v int) []map[string]any {
			return []map[string]any{{"op": "add", "path": "/rules", "value": asJSON(Rules(v))}}
		},
	},
	RoleBinding: {
		name: RoleBinding, namespaced: true,
		newObj:  func() client.Object { return &rbacv1.RoleBinding{} },
		newList: func() client.ObjectList { return &rbacv1.RoleBindingList{} },
		// The run's RoleBindings bind the Role "one" (roleRef is immutable).
		content: func(o client.Object, v int) {
			rb := o.(*rbacv1.RoleBinding)
			rb.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "one"}
			rb.Subjects = subjects(rb.Namespace, v)
		},
		contentMerge: func(ns string, v int) map[string]any {
			return map[string]any{"subjects": asJSON(subjects(ns, v))}
		},
		contentJSON: func(ns string, v int) []map[string]any {
			return []map[string]any{{"op": "add", "path": "/subjects", "value": asJSON(subjects(ns, v))}}
		},
	},
	Namespace: {
		name:    Namespace,
		newObj:  func() client.Object { return &corev1.Namespace{} },
		newList: func() client.ObjectList { return &corev1.NamespaceList{} },
		content: func(client.Object, int) {},
	},
}

// nonZero drops the fields whose value is 0.
func nonZero(m map[string]any) map[string]any {
	for k, v := range m {
		if v == 0 {
			delete(m, k)
		}
	}
	return m
}

func value(v int) string { return fmt.Sprintf("v%d", v) }
func color(v int) string { return []string{"red", "green", "blue"}[v%3] }
func replicas(v int) int32 {
	return int32(v % 3)
}
func image(v int) string { return fmt.Sprintf("registry.example/app:%d", v%2) }

// ServiceAccountName is the ServiceAccount that operations made "as sa" run as, in the
// run's first namespace.
const ServiceAccountName = "sa"

// subjects is the subject list of version v: the ServiceAccount, and for odd v also a user.
func subjects(namespace string, v int) []rbacv1.Subject {
	s := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: ServiceAccountName}}
	if v%2 == 1 {
		s = append(s, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "someone"})
	}
	return s
}

// Rules is the rule list of version v: read only, read-write, or everything, over the
// kinds the operations use (with or without the status subresources).
func Rules(v int) []rbacv1.PolicyRule {
	verbs := [][]string{
		{"get", "list"},
		{"get", "list", "create", "update", "patch", "delete"},
		{"*"},
	}[v%3]
	core, apps, widgets := []string{"configmaps", "secrets"}, []string{"deployments"}, []string{"widgets"}
	if (v/3)%2 == 1 {
		apps = append(apps, "deployments/status")
		widgets = append(widgets, "widgets/status")
	}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: core, Verbs: verbs},
		{APIGroups: []string{"apps"}, Resources: apps, Verbs: verbs},
		{APIGroups: []string{apiservertest.GroupVersion.Group}, Resources: widgets, Verbs: verbs},
	}
}

// DeploymentSpec is a valid Deployment spec with every field a real kube-apiserver
// defaults already set to its default, so that defaulting (which the model does not
// do; a known gap of sim/apiserver) changes nothing. TestDeploymentSpecIsDefaulted
// checks this against envtest.
func DeploymentSpec(v int) appsv1.DeploymentSpec {
	labels := map[string]string{"app": "web"}
	pct := intstr.FromString("25%")
	return appsv1.DeploymentSpec{
		Replicas: ptr.To(replicas(v)),
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{
					Name: "app", Image: image(v),
					TerminationMessagePath:   corev1.TerminationMessagePathDefault,
					TerminationMessagePolicy: corev1.TerminationMessageReadFile,
					ImagePullPolicy:          corev1.PullIfNotPresent,
				}},
				RestartPolicy:                 corev1.RestartPolicyAlways,
				TerminationGracePeriodSeconds: ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds),
				DNSPolicy:                     corev1.DNSClusterFirst,
				SecurityContext:               &corev1.PodSecurityContext{},
				SchedulerName:                 corev1.DefaultSchedulerName,
			},
		},
		Strategy: appsv1.DeploymentStrategy{
			Type:          appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &pct, MaxSurge: &pct},
		},
		RevisionHistoryLimit:    ptr.To[int32](10),
		ProgressDeadlineSeconds: ptr.To[int32](600),
	}
}

// asJSON converts v to its JSON form (maps, slices, strings, float64s).
func asJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}
