package apiserver

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/applyconfigurations"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// This file hosts kube-apiserver's field manager (k8s.io/apimachinery's
// managedfields, over sigs.k8s.io/structured-merge-diff): every write records
// its manager's fields in metadata.managedFields, and server-side apply merges
// an applied configuration by field ownership. It is built per kind and
// subresource as kube-apiserver builds it for a request scope
// (managedfields.NewDefaultFieldManager for built-in kinds,
// NewDefaultCRDFieldManager for custom resources), with the type converter of
// the kind's OpenAPI schema and the strategy's reset fields.

// kindFieldManagers holds a kind's field managers, built once on first use
// (a kind of the shared built-in table may be used by servers on several
// goroutines).
type kindFieldManagers struct {
	once   sync.Once
	main   *managedfields.FieldManager
	status *managedfields.FieldManager
	err    error
	// creates remembers the field manager's creates, updates its updates
	// (fieldmemo.go).
	creates createMemo
	updates updateMemo
	// shared is the update memo of a custom kind (updateMemo).
	sharedOnce sync.Once
	shared     *updateMemo
}

// fieldManager is the field manager of k's requests on subresource ("" or
// "status"); nil for other subresources (namespaces/finalize keeps the
// stored managedFields: doc.go's Known gaps).
func (s *Server) fieldManager(k *Kind, subresource string) (*managedfields.FieldManager, error) {
	fm := &k.fm
	fm.once.Do(func() { fm.main, fm.status, fm.err = s.newFieldManagers(k) })
	if fm.err != nil {
		return nil, fm.err
	}
	switch subresource {
	case "":
		return fm.main, nil
	case "status":
		return fm.status, nil
	}
	return nil, nil
}

func (s *Server) newFieldManagers(k *Kind) (main, status *managedfields.FieldManager, err error) {
	tc, err := s.typeConverter(k)
	if err != nil {
		return nil, nil, err
	}
	conv := objectConverter{k: k, scheme: s.kinds.scheme}
	def := objectDefaulter{k: k}
	mainReset, statusReset := resetFields(k)
	build := managedfields.NewDefaultFieldManager
	if k.Custom {
		build = managedfields.NewDefaultCRDFieldManager
	}
	hub := k.GVK.GroupVersion() // the model stores each kind's objects in the version it serves
	if main, err = build(tc, conv, def, conv, k.GVK, hub, "", fieldpath.NewExcludeFilterSetMap(mainReset)); err != nil {
		return nil, nil, err
	}
	if k.Status {
		if status, err = build(tc, conv, def, conv, k.GVK, hub, "status", fieldpath.NewExcludeFilterSetMap(statusReset)); err != nil {
			return nil, nil, err
		}
	}
	return main, status, nil
}

// typeConverter is the kind's schema as structured-merge-diff types: a custom
// resource's from its CRD's OpenAPI v3 schema as apiextensions' builder makes
// it (customresource_handler.go: builder.BuildOpenAPIV3 with default Options,
// then managedfields.NewTypeConverter with the CRD's preserveUnknownFields);
// a built-in kind's from client-go's structured-merge-diff schema of k8s.io/api
// (generated from kube-apiserver's OpenAPI); a kind neither knows (a custom
// resource without schema, a Go type of a test) gets the deduced converter,
// as kube-apiserver gives a CRD whose models could not be built.
func (s *Server) typeConverter(k *Kind) (managedfields.TypeConverter, error) {
	if k.Custom {
		if k.crd.Schema == nil {
			return managedfields.NewDeducedTypeConverter(), nil
		}
		def := crdDefinitionOf(k.crd)
		return cachedTypeConverter(k.crd, def, k.GVK.Version, func() (managedfields.TypeConverter, error) {
			spec, err := builder.BuildOpenAPIV3(def, k.GVK.Version, builder.Options{})
			if err != nil {
				return nil, fmt.Errorf("building the OpenAPI models of %s: %w", k.GVK, err)
			}
			return managedfields.NewTypeConverter(spec.Components.Schemas, def.Spec.PreserveUnknownFields)
		})
	}
	tc := applyconfigurations.NewTypeConverter(s.kinds.scheme)
	probe, err := s.kinds.scheme.New(k.GVK)
	if err != nil {
		return managedfields.NewDeducedTypeConverter(), nil
	}
	probe.GetObjectKind().SetGroupVersionKind(k.GVK)
	if _, err := tc.ObjectToTyped(probe); err != nil {
		return managedfields.NewDeducedTypeConverter(), nil
	}
	return tc, nil
}

// crdDefinitionOf is the CustomResourceDefinition serving crd's one version.
func crdDefinitionOf(crd CRD) *apiextensionsv1.CustomResourceDefinition {
	scope := apiextensionsv1.ClusterScoped
	if crd.Namespaced {
		scope = apiextensionsv1.NamespaceScoped
	}
	plural := crd.Plural
	if plural == "" {
		plural = strings.ToLower(crd.GVK.Kind) + "s"
	}
	v := apiextensionsv1.CustomResourceDefinitionVersion{
		Name: crd.GVK.Version, Served: true, Storage: true,
		Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: crd.Schema},
	}
	if crd.Status {
		v.Subresources = &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
	}
	def := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + crd.GVK.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: crd.GVK.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Kind: crd.GVK.Kind, ListKind: crd.GVK.Kind + "List", Plural: plural, Singular: strings.ToLower(crd.GVK.Kind),
			},
			Scope:    scope,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{v},
		},
	}
	if d := crd.Definition; d != nil {
		def.Spec.Names = d.Spec.Names
		def.Spec.PreserveUnknownFields = d.Spec.PreserveUnknownFields
	}
	if def.Spec.Names.ListKind == "" {
		def.Spec.Names.ListKind = crd.GVK.Kind + "List"
	}
	return def
}

// resetFields are the fields the strategies of k's main resource and status
// subresource reset (rest.ResetFieldsStrategy): what a manager of the one
// cannot own through the other. Hosted built-in kinds ask kube-apiserver's
// strategies; custom resources have customResourceStrategy's (status) and
// statusStrategy's (metadata and spec); other kinds with a status subresource
// the common pair (status; spec), other kinds none.
func resetFields(k *Kind) (main, status map[fieldpath.APIVersion]*fieldpath.Set) {
	v := fieldpath.APIVersion(k.GVK.GroupVersion().String())
	if st, ok := builtinStrategies[k.GVK.GroupKind()]; ok && !k.Custom && k.GVK.Version == "v1" {
		if r, ok := st.main.(rest.ResetFieldsStrategy); ok {
			main = r.GetResetFields()
		}
		if r, ok := st.status.(rest.ResetFieldsStrategy); ok && st.status != nil {
			status = r.GetResetFields()
		}
		return main, status
	}
	if !k.Status {
		return nil, nil
	}
	main = map[fieldpath.APIVersion]*fieldpath.Set{v: fieldpath.NewSet(fieldpath.MakePathOrDie("status"))}
	if k.Custom {
		status = map[fieldpath.APIVersion]*fieldpath.Set{v: fieldpath.NewSet(
			fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("spec"))}
	} else {
		status = map[fieldpath.APIVersion]*fieldpath.Set{v: fieldpath.NewSet(fieldpath.MakePathOrDie("spec"))}
	}
	return main, status
}

// objectConverter converts between the unstructured content the field
// manager merges and the kind's Go type (the scheme's conversion, as
// kube-apiserver's for the served version); an object of a kind with no Go
// type stays Unstructured. The model serves each version as a kind of its
// own, so the conversion never changes the version.
type objectConverter struct {
	k      *Kind
	scheme *runtime.Scheme
}

func (c objectConverter) Convert(in, out, context any) error {
	return c.scheme.Convert(in, out, context)
}

func (c objectConverter) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

func (c objectConverter) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	if c.k.Unstructured() {
		out := in.DeepCopyObject()
		if u, ok := out.(*unstructured.Unstructured); ok {
			gvk, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
			if ok {
				u.SetGroupVersionKind(gvk)
			}
		}
		return out, nil
	}
	return c.scheme.ConvertToVersion(in, gv)
}

// New is the objectCreater: a new object of the kind.
func (c objectConverter) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	if c.k.Unstructured() {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u, nil
	}
	return c.scheme.New(gvk)
}

// objectDefaulter defaults an applied object as the decoder would: the v1
// defaulters of a hosted built-in kind. A custom resource's schema defaults
// are applied by the write path after the field manager (crSchema.admit), as
// every write's are.
type objectDefaulter struct{ k *Kind }

func (d objectDefaulter) Default(obj runtime.Object) {
	if o, ok := obj.(client.Object); ok {
		defaultBuiltin(d.k, o)
	}
}

// managerOrUserAgent is the handler's function of the same name
// (k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/create.go): the request's
// fieldManager, or else the User-Agent's part before the first "/", its
// unprintable characters dropped, cut to the longest valid manager. A
// simulated process's User-Agent is its name (User.Agent).
func managerOrUserAgent(manager, userAgent string) string {
	if manager != "" {
		return manager
	}
	m := strings.Split(userAgent, "/")[0]
	var b strings.Builder
	for _, r := range m {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > validation.FieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// trackUpdate is the handlers' scope.FieldManager.UpdateNoErrors(live, obj,
// manager) on a create (live nil: a new object of the kind), update or
// non-apply patch, with the managedFields times on the virtual clock.
func (s *Server) trackUpdate(k *Kind, subresource string, live, obj client.Object, manager string) client.Object {
	fm, err := s.fieldManager(k, subresource)
	if err != nil || fm == nil {
		// No field manager: kube-apiserver keeps the live object's entries
		// (finalize has no field manager and its strategy keeps them).
		if live != nil {
			obj.SetManagedFields(live.GetManagedFields())
		} else {
			obj.SetManagedFields(nil)
		}
		return obj
	}
	liveObj := live
	if liveObj == nil {
		n, err := (objectConverter{k: k, scheme: s.kinds.scheme}).New(k.GVK)
		if err != nil {
			obj.SetManagedFields(nil)
			return obj
		}
		liveObj = n.(client.Object)
	}
	liveObj = withKind(k, liveObj)
	in := withKind(k, obj)
	memo := live == nil && !k.Custom && subresource == "" && len(in.GetManagedFields()) == 0 // createMemo's draw
	var key string
	if memo {
		key, memo = createKey(manager, in)
	}
	if memo {
		if mf, ok := k.fm.creates.get(key); ok {
			if draw := createDraw.Load(); draw != nil {
				(*draw)()
			}
			in.SetManagedFields(mf)
			s.virtualTimes(liveObj, in)
			return asStored(k, in)
		}
	}
	var upd updateKey
	if live != nil {
		if upd = newUpdateKey(manager, subresource, liveObj, in); upd.ok {
			if mf, ok := s.updateMemo(k).get(upd.key); ok {
				in.SetManagedFields(mf)
				s.virtualTimes(liveObj, in)
				return asStored(k, in)
			}
		}
	}
	asked := slices.Clone(in.GetManagedFields())
	out := fm.UpdateNoErrors(liveObj, in, manager).(client.Object)
	if memo {
		k.fm.creates.put(key, asked, out)
	}
	if upd.ok {
		s.updateMemo(k).put(upd, asked, out)
	}
	s.virtualTimes(liveObj, out)
	return asStored(k, out)
}

// apply is the apply patcher's fieldManager.Apply(live, patch, manager,
// force), with the managedFields times on the virtual clock.
func (s *Server) applyFields(k *Kind, subresource string, live client.Object, patch *unstructured.Unstructured, manager string, force bool) (client.Object, error) {
	fm, err := s.fieldManager(k, subresource)
	if err != nil {
		return nil, err
	}
	if fm == nil {
		return nil, errNotServed(k, live.GetName(), "patch")
	}
	liveObj := withKind(k, live)
	out, err := fm.Apply(liveObj, patch, manager, force)
	if err != nil {
		return nil, err
	}
	o := out.(client.Object)
	s.virtualTimes(liveObj, o)
	return asStored(k, o), nil
}

// withKind is obj with k's apiVersion/kind set (the field manager finds the
// type by it), a copy when it had to be set.
func withKind(k *Kind, obj client.Object) client.Object {
	if obj.GetObjectKind().GroupVersionKind() == k.GVK {
		return obj
	}
	c := obj.DeepCopyObject().(client.Object)
	c.GetObjectKind().SetGroupVersionKind(k.GVK)
	return c
}

// asStored is obj as the model keeps a kind's objects: a typed object
// without apiVersion/kind, an Unstructured one with them.
func asStored(k *Kind, obj client.Object) client.Object {
	if !k.Unstructured() {
		obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	}
	return obj
}

// virtualTimes puts the managedFields times the field manager stamped on the
// virtual clock. The manager stamps the entry of each manager whose fields it
// changed with the wall clock (managedFieldsUpdater: time.Now()); an entry
// whose time is not the live object's for that manager was stamped by this
// request and takes the server's now. The entries are then sorted again by
// upstream's order (sortEncodedManagedFields: operation, time in seconds,
// manager, apiVersion, subresource), which the new times may change.
func (s *Server) virtualTimes(live, out client.Object) {
	mf := out.GetManagedFields()
	if len(mf) == 0 {
		return
	}
	old := live.GetManagedFields()
	now := s.now()
	mf = slices.Clone(mf)
	for i := range mf {
		e := &mf[i]
		kept := false
		for _, o := range old {
			if o.Manager == e.Manager && o.Operation == e.Operation && o.Subresource == e.Subresource &&
				o.APIVersion == e.APIVersion && timeEqual(o.Time, e.Time) {
				kept = true
				break
			}
		}
		if !kept && e.Time != nil {
			t := now
			e.Time = &t
		}
	}
	slices.SortStableFunc(mf, func(p, q metav1.ManagedFieldsEntry) int {
		if p.Operation != q.Operation {
			return strings.Compare(string(p.Operation), string(q.Operation))
		}
		if ps, qs := unixOf(p.Time), unixOf(q.Time); ps != qs {
			if ps < qs {
				return -1
			}
			return 1
		}
		if c := strings.Compare(p.Manager, q.Manager); c != 0 {
			return c
		}
		if c := strings.Compare(p.APIVersion, q.APIVersion); c != 0 {
			return c
		}
		return strings.Compare(p.Subresource, q.Subresource)
	})
	out.SetManagedFields(mf)
}

func timeEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Time.Equal(b.Time)
}

func unixOf(t *metav1.Time) int64 {
	if t == nil {
		return 0
	}
	return t.Unix()
}
