package differential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// dryRunAnswer is one dry-run write's answer as the comparison sees it: the
// error (code, message, causes), or the returned object: its name (a
// generated suffix replaced), whether it has a uid and a creationTimestamp,
// its resourceVersion relative to the stored object's, its generation, its
// content, and its managedFields (times apart, as applyResult keeps them).
type dryRunAnswer struct {
	Write      string
	Code       int32
	Err        string
	Causes     []string
	Name       string
	UID        bool
	Created    bool
	RV         string
	Generation int64
	Content    any
	Managed    []applyEntry
}

// configMapContent is the part of a ConfigMap the dry-run writes change.
type configMapContent struct {
	Labels, Data map[string]string
	Finalizers   []string
	Deleting     bool
}

// deploymentStatus is the part of a Deployment's status the dry run writes.
type deploymentStatus struct{ ObservedGeneration, Replicas, UpdatedReplicas int64 }

// A stored resourceVersion, relative to the one the object had before the
// write (none for an object that did not exist).
const (
	rvEmpty  = "empty"
	rvStored = "the stored one"
	rvOther  = "another"
)

// dryRunSide runs the script on one side: its client and namespace, and the
// resourceVersions of the objects as the setup left them (the stored ones,
// since no dry run may change them).
type dryRunSide struct {
	c      client.Client
	ns     string
	stored map[string]string // "Kind/name" -> resourceVersion
	// generated is the name the dry-run create by generateName answered.
	generated string
}

// The script's objects: created for real by the setup (existing), or named by
// a dry-run write only (never stored).
var (
	dryRunExisting = []string{"ConfigMap/first", "ConfigMap/held", "Deployment/d"}
	dryRunMissing  = []string{"ConfigMap/second", "ConfigMap/applied", "ConfigMap/refused"}
)

const (
	dryRunGenerateName = "gen-"
	dryRunFinalizer    = "ctrlsim.dev/hold"
	dryRunOwner        = "dave"
)

func (s *dryRunSide) answer(write string, o client.Object, content any, err error) dryRunAnswer {
	a := dryRunAnswer{Write: write}
	if err != nil {
		var st apierrors.APIStatus
		if errors.As(err, &st) {
			a.Code = st.Status().Code
		}
		e := errOutcome(err)
		a.Err, a.Causes = e.Err, e.Causes
		return a
	}
	a.Name = o.GetName()
	if g := o.GetGenerateName(); g != "" && strings.HasPrefix(a.Name, g) && len(a.Name) == len(g)+5 {
		a.Name = g + "<suffix>"
	}
	a.UID, a.Created = o.GetUID() != "", !o.GetCreationTimestamp().Time.IsZero()
	kind := "ConfigMap"
	if _, ok := o.(*appsv1.Deployment); ok {
		kind = "Deployment"
	}
	switch rv := o.GetResourceVersion(); {
	case rv == "":
		a.RV = rvEmpty
	case rv == s.stored[kind+"/"+o.GetName()]:
		a.RV = rvStored
	default:
		a.RV = rvOther
	}
	a.Generation = o.GetGeneration()
	a.Content = content
	a.Managed = applyResult(o, nil, nil).Managed
	return a
}

func (s *dryRunSide) configMap(write string, cm *corev1.ConfigMap, err error) dryRunAnswer {
	return s.answer(write, cm, configMapContent{Labels: cm.Labels, Data: cm.Data, Finalizers: cm.Finalizers, Deleting: cm.DeletionTimestamp != nil}, err)
}

// errOnly is the answer of a write whose client returns only an error
// (controller-runtime's Delete and DeleteAllOf).
func (s *dryRunSide) errOnly(write string, err error) dryRunAnswer {
	if err != nil {
		return s.answer(write, nil, nil, err)
	}
	return dryRunAnswer{Write: write}
}

// applyPatch is a dry-run server-side apply, as an apply patch, of the
// ConfigMap name with data, by dryRunOwner.
func (s *dryRunSide) applyPatch(ctx context.Context, name string, data map[string]any) (*corev1.ConfigMap, error) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": s.ns},
		"data":     data,
	}}
	err := s.c.Patch(ctx, u, client.Apply, client.FieldOwner(dryRunOwner), client.DryRunAll) //nolint:staticcheck // the apply patch is what operators send
	cm := &corev1.ConfigMap{}
	if err == nil {
		err = convertJSON(u.Object, cm)
	}
	return cm, err
}

func (s *dryRunSide) key(name string) client.ObjectKey {
	return client.ObjectKey{Namespace: s.ns, Name: name}
}

func (s *dryRunSide) cm(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name}}
}

// setUp creates the namespace and the existing objects for real, and records
// their resourceVersions.
func (s *dryRunSide) setUp(ctx context.Context) error {
	first := s.cm("first")
	first.Labels, first.Data = map[string]string{"app": "one"}, map[string]string{"a": "1"}
	held := s.cm("held")
	held.Finalizers, held.Data = []string{dryRunFinalizer}, map[string]string{"h": "1"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "d"}, Spec: DeploymentSpec(0)}
	for _, o := range []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}, first, held, d} {
		if err := s.c.Create(ctx, o); err != nil {
			return fmt.Errorf("setting up %s: %w", o.GetName(), err)
		}
	}
	s.stored = map[string]string{
		"ConfigMap/first": first.ResourceVersion, "ConfigMap/held": held.ResourceVersion, "Deployment/d": d.ResourceVersion,
	}
	return nil
}

// state is what a dry run must not have changed: each object of the script
// unchanged (its resourceVersion the stored one, not deleting) or NotFound,
// and the names of the namespace's ConfigMaps.
func (s *dryRunSide) state(ctx context.Context) []string {
	var out []string
	names := append(slices.Clone(dryRunExisting), dryRunMissing...)
	if s.generated != "" {
		names = append(names, "ConfigMap/"+s.generated)
	}
	for _, n := range names {
		kind, name, _ := strings.Cut(n, "/")
		var o client.Object = &corev1.ConfigMap{}
		if kind == "Deployment" {
			o = &appsv1.Deployment{}
		}
		shown := n
		if name == s.generated {
			shown = "ConfigMap/" + dryRunGenerateName + "<suffix>"
		}
		err := s.c.Get(ctx, s.key(name), o)
		switch {
		case apierrors.IsNotFound(err):
			out = append(out, shown+": NotFound")
		case err != nil:
			out = append(out, shown+": "+err.Error())
		case o.GetResourceVersion() == s.stored[n] && o.GetDeletionTimestamp() == nil:
			out = append(out, shown+": unchanged")
		default:
			out = append(out, fmt.Sprintf("%s: changed (resourceVersion %s, stored %q; deletionTimestamp %v)",
				shown, o.GetResourceVersion(), s.stored[n], o.GetDeletionTimestamp()))
		}
	}
	list := &corev1.ConfigMapList{}
	if err := s.c.List(ctx, list, client.InNamespace(s.ns)); err != nil {
		return append(out, "list: "+err.Error())
	}
	var listed []string
	for _, cm := range list.Items {
		listed = append(listed, cm.Name)
	}
	slices.Sort(listed)
	return append(out, "ConfigMaps listed: "+strings.Join(listed, " "))
}

// dryRunStep is one step of the script: its dry-run writes, each giving an
// answer; the objects' state is read after it.
type dryRunStep struct {
	name   string
	writes func(ctx context.Context, s *dryRunSide) []dryRunAnswer
}

var dryRunSteps = []dryRunStep{
	{"creates", func(ctx context.Context, s *dryRunSide) []dryRunAnswer {
		second := s.cm("second")
		second.Labels, second.Data = map[string]string{"app": "two"}, map[string]string{"b": "2"}
		err := s.c.Create(ctx, second, client.DryRunAll)
		a1 := s.configMap("create second", second, err)

		gen := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, GenerateName: dryRunGenerateName}, Data: map[string]string{"g": "1"}}
		err = s.c.Create(ctx, gen, client.DryRunAll)
		if err == nil {
			s.generated = gen.Name
		}
		a2 := s.configMap("create by generateName", gen, err)

		again := s.cm("first")
		again.Data = map[string]string{"a": "2"}
		err = s.c.Create(ctx, again, client.DryRunAll)
		return []dryRunAnswer{a1, a2, s.configMap("create first again", again, err)}
	}},
	{"updates, patches and applies", func(ctx context.Context, s *dryRunSide) []dryRunAnswer {
		var out []dryRunAnswer
		first := &corev1.ConfigMap{}
		err := s.c.Get(ctx, s.key("first"), first)
		if err == nil {
			first.Data = map[string]string{"a": "2", "u": "1"}
			err = s.c.Update(ctx, first, client.DryRunAll)
		}
		out = append(out, s.configMap("update first", first, err))

		patched := s.cm("first")
		err = s.c.Patch(ctx, patched, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"patched":"yes"}},"data":{"p":"1"}}`)), client.DryRunAll)
		out = append(out, s.configMap("merge patch first", patched, err))

		ac := corev1ac.ConfigMap("first", s.ns).WithData(map[string]string{"x": "1"})
		applied := &corev1.ConfigMap{}
		err = s.c.Apply(ctx, ac, client.FieldOwner(dryRunOwner), client.DryRunAll)
		if err == nil {
			err = convertJSON(ac, applied)
		}
		out = append(out, s.configMap("apply first", applied, err))

		// A typed apply configuration carries no managedFields: the same
		// apply as an unstructured apply patch shows them.
		cm, err := s.applyPatch(ctx, "first", map[string]any{"x": "1"})
		out = append(out, s.configMap("apply first (apply patch)", cm, err))
		cm, err = s.applyPatch(ctx, "applied", map[string]any{"y": "1"})
		return append(out, s.configMap("apply missing", cm, err))
	}},
	{"status update", func(ctx context.Context, s *dryRunSide) []dryRunAnswer {
		d := &appsv1.Deployment{}
		err := s.c.Get(ctx, s.key("d"), d)
		if err == nil {
			d.Status.ObservedGeneration, d.Status.Replicas, d.Status.UpdatedReplicas = d.Generation, 1, 1
			err = s.c.Status().Update(ctx, d, client.DryRunAll)
		}
		status := deploymentStatus{d.Status.ObservedGeneration, int64(d.Status.Replicas), int64(d.Status.UpdatedReplicas)}
		return []dryRunAnswer{s.answer("status update d", d, status, err)}
	}},
	{"deletes", func(ctx context.Context, s *dryRunSide) []dryRunAnswer {
		return []dryRunAnswer{
			s.errOnly("delete first", s.c.Delete(ctx, s.cm("first"), client.DryRunAll)),
			s.errOnly("delete held (a finalizer)", s.c.Delete(ctx, s.cm("held"), client.DryRunAll)),
			s.errOnly("delete missing", s.c.Delete(ctx, s.cm("second"), client.DryRunAll)),
			s.errOnly("deletecollection", s.c.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(s.ns), client.DryRunAll)),
		}
	}},
	{"dryRun Foo", func(ctx context.Context, s *dryRunSide) []dryRunAnswer {
		foo := []string{"Foo"}
		refused := s.cm("refused")
		err := s.c.Create(ctx, refused, &client.CreateOptions{DryRun: foo})
		out := []dryRunAnswer{s.configMap("create", refused, err)}

		first := &corev1.ConfigMap{}
		err = s.c.Get(ctx, s.key("first"), first)
		if err == nil {
			first.Data = map[string]string{"a": "3"}
			err = s.c.Update(ctx, first, &client.UpdateOptions{DryRun: foo})
		}
		out = append(out, s.configMap("update", first, err))

		patched := s.cm("first")
		err = s.c.Patch(ctx, patched, client.RawPatch(types.MergePatchType, []byte(`{"data":{"a":"4"}}`)), &client.PatchOptions{DryRun: foo})
		out = append(out, s.configMap("merge patch", patched, err))

		ac := corev1ac.ConfigMap("first", s.ns).WithData(map[string]string{"x": "2"})
		applied := &corev1.ConfigMap{}
		err = s.c.Apply(ctx, ac, &client.ApplyOptions{FieldManager: dryRunOwner, DryRun: foo})
		if err == nil {
			err = convertJSON(ac, applied)
		}
		out = append(out, s.configMap("apply", applied, err))

		d := &appsv1.Deployment{}
		err = s.c.Get(ctx, s.key("d"), d)
		if err == nil {
			d.Status.Replicas = 2
			err = s.c.Status().Update(ctx, d, &client.SubResourceUpdateOptions{UpdateOptions: client.UpdateOptions{DryRun: foo}})
		}
		status := deploymentStatus{d.Status.ObservedGeneration, int64(d.Status.Replicas), int64(d.Status.UpdatedReplicas)}
		out = append(out, s.answer("status update", d, status, err))

		out = append(out, s.errOnly("delete", s.c.Delete(ctx, s.cm("first"), &client.DeleteOptions{DryRun: foo})))
		return append(out, s.errOnly("deletecollection", s.c.DeleteAllOf(ctx, &corev1.ConfigMap{},
			&client.DeleteAllOfOptions{ListOptions: client.ListOptions{Namespace: s.ns}, DeleteOptions: client.DeleteOptions{DryRun: foo}})))
	}},
}

// convertJSON reads from's JSON form into to.
func convertJSON(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

// dryRunRun is what the script gave on one side: each step's answers and the
// state read after it.
type dryRunRun struct {
	Answers [][]dryRunAnswer
	States  [][]string
}

func runDryRunScript(t *testing.T, c client.Client, ns string) dryRunRun {
	t.Helper()
	s := &dryRunSide{c: c, ns: ns}
	if err := s.setUp(ctx); err != nil {
		t.Fatal(err)
	}
	var run dryRunRun
	for _, step := range dryRunSteps {
		run.Answers = append(run.Answers, step.writes(ctx, s))
		run.States = append(run.States, s.state(ctx))
	}
	// Let the finalized ConfigMap go with its namespace.
	held := &corev1.ConfigMap{}
	if err := c.Get(ctx, s.key("held"), held); err == nil {
		held.Finalizers = nil
		_ = c.Update(ctx, held)
	}
	return run
}

// Dry-run writes (dryRun=All) on the model are kube-apiserver's: each is
// admitted, validated and answered as the write would be, and nothing is
// stored. A dry-run create answers the object as it would be stored (a uid,
// a creationTimestamp, its generated name) with no resourceVersion, and a
// create of an existing name is AlreadyExists. A dry-run update, merge patch,
// server-side apply and status update answer the changed object with the
// stored object's resourceVersion, and a dry-run apply of a missing object
// answers it created. A dry-run delete (of an object without finalizers, of
// one with a finalizer, of a missing one) and deletecollection answer as the
// real ones would. A dryRun other than All is refused with a 422 naming the
// request's options. Compared: each answer's error (code, message, causes),
// or its object's name, uid and creationTimestamp (set or not),
// resourceVersion (empty, the stored one, another), generation, content and
// managedFields (times apart); and after each step, that every object of the
// script is unchanged (its stored resourceVersion, not deleting) or NotFound,
// and the namespace's ConfigMaps.
func TestDryRunMatchesKubeAPIServer(t *testing.T) {
	r := needReal(t)
	realClient, err := r.Client(apiserver.Admin)
	if err != nil {
		t.Fatal(err)
	}
	// The model's client sends the User-Agent envtest's client sends (its
	// prefix is the default field manager).
	u := apiserver.Admin
	u.Agent = rest.DefaultKubernetesUserAgent()
	model := kubeclient.New(NewModel().Server, u, kubeclient.Options{})

	ns := nextNames().Namespace("dry")
	start := time.Now()
	want := runDryRunScript(t, realClient, ns)
	realTime := time.Since(start)
	got := runDryRunScript(t, model, ns)
	t.Logf("kube-apiserver %v, model %v", realTime.Round(time.Millisecond), (time.Since(start) - realTime).Round(time.Millisecond))

	for i, step := range dryRunSteps {
		for j := range want.Answers[i] {
			if d := cmp.Diff(want.Answers[i][j], got.Answers[i][j]); d != "" {
				t.Errorf("step %q, %s: model (+) vs kube-apiserver (-):\n%s", step.name, want.Answers[i][j].Write, d)
			}
		}
		if d := cmp.Diff(want.States[i], got.States[i]); d != "" {
			t.Errorf("after step %q, the objects: model (+) vs kube-apiserver (-):\n%s", step.name, d)
		}
	}
	checkDryRunScript(t, want)
}

// checkDryRunScript checks that kube-apiserver's run shows what the script
// says: each write succeeded or was refused as the script means it to, and no step
// changed an object.
func checkDryRunScript(t *testing.T, run dryRunRun) {
	t.Helper()
	codes := [][]int32{
		{0, 0, 409},
		{0, 0, 0, 0, 0},
		{0},
		{0, 0, 404, 0},
		{422, 422, 422, 422, 422, 422, 422},
	}
	for i, step := range dryRunSteps {
		var got []int32
		for _, a := range run.Answers[i] {
			got = append(got, a.Code)
		}
		if !slices.Equal(got, codes[i]) {
			t.Errorf("kube-apiserver, step %q: codes %v, the script expects %v: it does not test what it says", step.name, got, codes[i])
		}
	}
	var unchanged []string
	for _, n := range dryRunExisting {
		unchanged = append(unchanged, n+": unchanged")
	}
	for _, n := range dryRunMissing {
		unchanged = append(unchanged, n+": NotFound")
	}
	unchanged = append(unchanged, "ConfigMap/"+dryRunGenerateName+"<suffix>: NotFound", "ConfigMaps listed: first held")
	for i, step := range dryRunSteps {
		if d := cmp.Diff(unchanged, run.States[i]); d != "" {
			t.Errorf("kube-apiserver, after step %q: a dry run changed an object (-expected +got):\n%s", step.name, d)
		}
	}
}
