package apiserver

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/rbac"
)

// User is the identity a request is made as.
type User struct {
	Name   string
	Groups []string
	// Agent names the client the request comes from (a process of the
	// simulation), as a User-Agent would: faults can be aimed at one client's
	// requests. Authorization ignores it.
	Agent string
}

// Admin is a cluster administrator: a member of system:masters, which every
// authorizer allows (as the privileged-group authorizer of a real kube-apiserver does).
var Admin = User{Name: "system:admin", Groups: []string{rbac.SystemMasters, "system:authenticated"}}

// ServiceAccount is the identity of a pod running as the ServiceAccount namespace/name.
func ServiceAccount(namespace, name string) User {
	u, g := rbac.ServiceAccountUser(namespace, name)
	return User{Name: u, Groups: g}
}

// Rand draws the random parts of names (generateName suffixes). sim/rng streams satisfy it.
type Rand interface {
	IntN(n int) int
}

// Options configure a Server.
type Options struct {
	// Scheme knows every Go type the server stores. Required.
	Scheme *runtime.Scheme
	// Clock gives creation and deletion timestamps. Required: the virtual clock in a simulation.
	Clock clock.PassiveClock
	// CRDs are installed at start, as with InstallCRD.
	CRDs []CRD
	// Rand picks generateName suffixes. Defaults to a fixed-seed generator.
	Rand Rand
	// Later runs f after d of virtual time (the clock's AfterFunc): the
	// apiextensions controllers' work after a CustomResourceDefinition write
	// (crdserve.go). Nil: that work is done at once, within the write.
	Later func(d time.Duration, f func())
	// Delays draws those controllers' delays; nil: none.
	Delays Rand
	// ServiceCIDR is the range Services' cluster IPs come from (serviceip.go);
	// "": DefaultServiceCIDR. New panics on one that is not an IPv4 prefix.
	ServiceCIDR string
}

type objectKey struct{ namespace, name string }

// Server is the API-server model. It is not safe for concurrent use: the
// simulation's scheduler runs one goroutine at a time.
type Server struct {
	kinds   *kinds
	clock   clock.PassiveClock
	rand    Rand
	authz   *rbac.Authorizer
	rv      uint64
	uids    uint64
	objects map[schema.GroupVersionKind]*kindStore
	subs    map[schema.GroupVersionKind][]*subscription
	log     []Event
	faults  []*activeFault
	// CustomResourceDefinition objects (crdserve.go)
	crds     map[string]*crdState
	laterFn  func(d time.Duration, f func())
	delays   Rand
	kindsGen int // bumped whenever the served kinds change
	// webhooks is webhook admission (admission_webhook.go); nil: none.
	webhooks WebhookAdmission
	warnings []string // of the request being served (Warn)
	// converter calls conversion webhooks (versions.go); vwatch are the
	// watch streams of non-storage versions.
	converter Converter
	vwatch    map[schema.GroupVersionKind]*versionWatch
	// services holds the Services' cluster IPs and node ports (serviceip.go).
	services *serviceAllocs

	// storageProtection: the StorageObjectInUseProtection admission plugin
	// is on (admission_storage.go).
	storageProtection bool
	// refusePrivileged: --allow-privileged=false (builtin_validation.go).
	refusePrivileged bool
}

// New returns a server that serves every kind of k8s.io/api registered in opts.Scheme
// and the given CRDs. It starts empty: no namespaces exist until created (see
// CreateDefaultNamespaces).
func New(opts Options) *Server {
	if opts.Scheme == nil || opts.Clock == nil {
		panic("apiserver.New: Scheme and Clock are required")
	}
	s := &Server{
		kinds:   newKinds(opts.Scheme),
		clock:   opts.Clock,
		rand:    opts.Rand,
		objects: map[schema.GroupVersionKind]*kindStore{},
		subs:    map[schema.GroupVersionKind][]*subscription{},
		crds:    map[string]*crdState{},
		vwatch:  map[schema.GroupVersionKind]*versionWatch{},
		laterFn: opts.Later,
		delays:  opts.Delays,
	}
	if s.rand == nil {
		s.rand = &splitmix{state: 0x9E3779B97F4A7C15}
	}
	services, err := newServiceAllocs(opts.ServiceCIDR)
	if err != nil {
		panic("apiserver.New: " + err.Error())
	}
	s.services = services
	s.authz = rbac.New(rbacRules{s})
	for _, crd := range opts.CRDs {
		s.InstallCRD(crd)
	}
	return s
}

// InstallCRD serves a custom resource, as creating its CustomResourceDefinition
// would. When the scheme has a Go type for crd.GVK, objects are stored as that
// type; otherwise the kind is served as *unstructured.Unstructured (Kind.Unstructured),
// the only form a kind that a CRD alone defines has.
// A CRD with a Definition of several versions serves each served version
// (versions.go).
func (s *Server) InstallCRD(crd CRD) { s.installCRD(crd) }

// installCRD serves crd and returns its storage version's kind.
func (s *Server) installCRD(crd CRD) *Kind {
	if def := crd.Definition; def != nil && multiVersion(def) {
		return s.installVersions(def)
	}
	k := s.newCustomKind(crd)
	s.kinds.add(k)
	s.kindsGen++
	return k
}

// multiVersion reports whether def serves another version than its storage one.
func multiVersion(def *apiextensionsv1.CustomResourceDefinition) bool {
	n := 0
	for _, v := range def.Spec.Versions {
		if v.Served || v.Storage {
			n++
		}
	}
	return n > 1
}

// newCustomKind is the Kind of one version of a CRD.
func (s *Server) newCustomKind(crd CRD) *Kind {
	t, ok := s.kinds.scheme.AllKnownTypes()[crd.GVK]
	if !ok {
		t = unstructuredType
	}
	k := customKind(crd, t)
	if crd.Schema != nil {
		sc, err := cachedCRSchema(crd.GVK, crd.Schema)
		if err != nil {
			panic(fmt.Sprintf("apiserver.InstallCRD: %v", err))
		}
		k.schema = sc
	}
	return k
}

// CreateDefaultNamespaces creates default, kube-system, kube-public and
// kube-node-lease, as a fresh cluster has them.
func (s *Server) CreateDefaultNamespaces() {
	for _, n := range []string{"default", "kube-node-lease", "kube-public", "kube-system"} {
		if err := s.Create(Admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}); err != nil {
			panic(err)
		}
	}
}

// Kind returns the served kind of a typed object or list.
func (s *Server) Kind(obj runtime.Object) (*Kind, error) { return s.kinds.forObject(obj) }

// KindFor returns the served kind with this GVK.
func (s *Server) KindFor(gvk schema.GroupVersionKind) (*Kind, bool) {
	return s.kinds.byGVK(gvk)
}

// KindCount is the number of served kinds (it grows with InstallCRD).
func (s *Server) KindCount() int { return len(s.kinds.base.order) + len(s.kinds.own.order) }

// KindsGeneration changes whenever the served kinds change (a CRD installed or
// removed): mappers built from Kinds are stale once it has moved.
func (s *Server) KindsGeneration() int { return s.kindsGen }

// Kinds returns every served kind in registration order.
func (s *Server) Kinds() []*Kind { return s.kinds.order() }

// KindsKey identifies the kinds the server serves now (Kinds): two servers,
// or one server at two times, with the same key serve the same kinds, with
// the same resources and scopes, in the same order. Cheap: a client built
// per process start asks it to find a REST mapper built before.
func (s *Server) KindsKey() string { return s.kinds.key() }

// Scheme returns the scheme the server stores types of.
func (s *Server) Scheme() *runtime.Scheme { return s.kinds.scheme }

// ResourceVersion is the current value of the global resourceVersion counter.
func (s *Server) ResourceVersion() uint64 { return s.rv }

// Log returns the watch log: every committed change, in resourceVersion order.
func (s *Server) Log() []Event { return s.log }

// now is the timestamp the server writes: serialized timestamps have second precision.
func (s *Server) now() metav1.Time {
	return metav1.NewTime(s.clock.Now().Truncate(time.Second))
}

func (s *Server) newUID() string {
	s.uids++
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", s.uids>>48, s.uids&0xffffffffffff)
}

// generateName appends five characters as k8s.io/apiserver's names.SimpleNameGenerator does.
func (s *Server) generateName(base string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	const maxBase = 63 - 5
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	var b strings.Builder
	b.WriteString(base)
	for range 5 {
		b.WriteByte(alphabet[s.rand.IntN(len(alphabet))])
	}
	return b.String()
}

// kindStore holds the objects of one kind, and their keys in etcd order once a list
// has asked for them (until an object is added or removed).
type kindStore struct {
	objects map[objectKey]client.Object
	sorted  []objectKey
	// latest is the resourceVersion of the kind's newest change (a
	// deletion included), latestIn that of each namespace's.
	latest   uint64
	latestIn map[string]uint64
}

func (ks *kindStore) get(key objectKey) (client.Object, bool) {
	o, ok := ks.objects[key]
	return o, ok
}

// keys returns the keys in etcd order. The caller must not modify the slice.
func (ks *kindStore) keys() []objectKey {
	if ks.sorted == nil {
		ks.sorted = make([]objectKey, 0, len(ks.objects))
		for k := range ks.objects { // lint:order-independent sorted below
			ks.sorted = append(ks.sorted, k)
		}
		sort.Slice(ks.sorted, func(i, j int) bool { return keyLess(ks.sorted[i], ks.sorted[j]) })
	}
	return ks.sorted
}

func (ks *kindStore) put(key objectKey, obj client.Object) {
	if _, ok := ks.objects[key]; !ok {
		ks.sorted = nil
	}
	ks.objects[key] = obj
}

func (ks *kindStore) remove(key objectKey) {
	delete(ks.objects, key)
	ks.sorted = nil
}

// store returns the objects of one kind.
func (s *Server) store(k *Kind) *kindStore {
	gvk := k.storageKind().GVK
	ks := s.objects[gvk]
	if ks == nil {
		ks = &kindStore{objects: map[objectKey]client.Object{}}
		s.objects[gvk] = ks
	}
	return ks
}

// commit stores obj (for watch.Deleted, removes it), assigns the next
// resourceVersion, appends to the watch log and notifies watchers. Its times must
// already be serialized (create and update serialize what the client sent; the
// server's own timestamps come from now). obj is in the storage version of k
// (toStorage).
func (s *Server) commit(k *Kind, typ watch.EventType, obj client.Object) {
	k = k.storageKind()
	s.rv++
	obj.SetResourceVersion(strconv.FormatUint(s.rv, 10))
	key := objectKey{obj.GetNamespace(), obj.GetName()}
	if typ == watch.Deleted {
		s.store(k).remove(key)
		if svc, ok := obj.(*corev1.Service); ok && k.GVK == serviceGVK {
			s.services.release(svc) // serviceip.go
		}
	} else {
		s.store(k).put(key, obj)
	}
	ks := s.store(k)
	ks.latest = s.rv
	if ns := obj.GetNamespace(); ns != "" {
		if ks.latestIn == nil {
			ks.latestIn = map[string]uint64{}
		}
		ks.latestIn[ns] = s.rv
	}
	ev := Event{Type: typ, GVK: k.GVK, Object: obj, ResourceVersion: s.rv, At: s.clock.Now()}
	s.log = append(s.log, ev)
	s.notify(ev)
	s.notifyVersions(k, ev)
	if isCRDKind(k) {
		s.crdCommitted(typ, obj)
	}
}

// copyInto sets *out to a deep copy of stored. The typed client decodes responses
// without apiVersion/kind, so TypeMeta is cleared.
// An unstructured object keeps them: the unstructured decoder reads them from the
// response's JSON.
func copyInto(out runtime.Object, stored client.Object) {
	c := stored.DeepCopyObject()
	reflect.ValueOf(out).Elem().Set(reflect.ValueOf(c).Elem())
	if !isUnstructured(out) {
		out.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	}
}

// keyLess orders objects as etcd orders their keys: by the string "namespace/name".
func keyLess(a, b objectKey) bool {
	if a.namespace == b.namespace {
		return a.name < b.name
	}
	// Compare "a.namespace/a.name" with "b.namespace/b.name" without building them.
	sa, sb := a.namespace+"/", b.namespace+"/"
	n := min(len(sa), len(sb))
	for i := 0; i < n; i++ {
		if sa[i] != sb[i] {
			return sa[i] < sb[i]
		}
	}
	return len(sa) < len(sb)
}

// splitmix is the default Rand: deterministic, seeded with a constant.
type splitmix struct{ state uint64 }

func (r *splitmix) IntN(n int) int {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	z ^= z >> 31
	return int(z % uint64(n))
}

// errNotServed is the 404 a real server answers for a path it does not serve, such
// as a subresource the kind does not have.
func errNotServed(k *Kind, name, verb string) error {
	err := apierrors.NewGenericServerResponse(404, verb, k.GroupResource(), name, "", 0, false)
	err.ErrStatus.Message = "the server could not find the requested resource"
	err.ErrStatus.Details = &metav1.StatusDetails{} // the mux's 404 names nothing
	return err
}

// LatestResourceVersion is the resourceVersion of the newest change (a
// deletion included) to an object of kind gvk in namespace ("": in any), or 0
// when there was none (or the kind is not served): what a list of that kind
// there must reflect to be current. Like CurrentResourceVersion it is for
// observers (traces).
func (s *Server) LatestResourceVersion(gvk schema.GroupVersionKind, namespace string) uint64 {
	k, ok := s.kinds.byGVK(gvk)
	if !ok {
		return 0
	}
	ks := s.objects[k.storageKind().GVK]
	switch {
	case ks == nil:
		return 0
	case namespace == "" || !k.Namespaced:
		return ks.latest
	}
	return ks.latestIn[namespace]
}

// CurrentResourceVersion returns the stored resourceVersion of the object of obj's
// kind at namespace/name, or 0 when there is none (or the kind is not served). It is
// for observers (traces), not for clients: it neither authorizes nor injects faults.
func (s *Server) CurrentResourceVersion(obj runtime.Object, namespace, name string) uint64 {
	k, err := s.kinds.forObject(obj)
	if err != nil {
		return 0
	}
	if !k.Namespaced {
		namespace = ""
	}
	o, ok := s.store(k).get(objectKey{namespace, name})
	if !ok {
		return 0
	}
	rv, _ := parseRV(o.GetResourceVersion())
	return rv
}
