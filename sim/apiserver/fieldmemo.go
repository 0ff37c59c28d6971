package apiserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// createMemo remembers what the field manager made of a create of a
// built-in kind: the managedFields of the request's object (its bytes and
// the manager name the key; only creates of the object itself are
// remembered, see below), so that the same create in
// another run (every run creates the default namespaces, the test's seed
// objects and, most often, the same children) costs one encoding instead of
// structured-merge-diff's typed conversion and set algebra (12% of an
// exploration's CPU before, twowrites). The field manager's Update of a
// create is a function of those alone: the live object is a new one of the
// kind, and the type converter of a built-in kind is the scheme's (the
// kind's table is per scheme). Only a create whose output differs from its
// input in managedFields alone is remembered; times are the virtual clock's
// (virtualTimes) on every hit as on the miss.
//
// A remembered create must leave the process as the field manager's own
// would: managedfields' skipNonAppliedManager (apimachinery) draws one Float32
// from math/rand's global generator for every create whose managedFields
// are empty (its probability is 1, so the value is never used), and code
// under test draws from that generator too (wait.Jitter: a client's retry
// on conflict). A hit that drew nothing would leave the code under test's
// draws a function of which creates the process had met before, in earlier
// runs: one plan gave a new trace at every run in one process (a
// StatefulSet's status retry waited 10.36 ms, then 10.61 ms). So only a
// create whose request carries no managedFields, of the object itself (no
// subresource), is remembered, and each hit draws once through
// SetCreateDraw's function, which the world sets to that draw (wallclock.SeedRandom): package sim/ may not
// touch math/rand's global generator itself.
type createMemo struct {
	mu sync.Mutex
	m  map[string][]metav1.ManagedFieldsEntry
}

// SetCreateDraw sets what a create the memo remembers draws in place of
// the field manager (see createMemo); without it, nothing.
func SetCreateDraw(draw func()) {
	if draw == nil {
		createDraw.Store(nil)
		return
	}
	createDraw.Store(&draw)
}

var createDraw atomic.Pointer[func()]

// maxCreateMemo bounds a kind's memo: when full it starts over (a memo hit
// or miss gives the same object, so forgetting changes only the cost).
const maxCreateMemo = 4096

func createKey(manager string, obj client.Object) (string, bool) {
	b, err := json.Marshal(obj)
	if err != nil {
		return "", false
	}
	return manager + "\x00" + string(b), true
}

func (c *createMemo) get(key string) ([]metav1.ManagedFieldsEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	mf, ok := c.m[key]
	if !ok {
		return nil, false
	}
	out := make([]metav1.ManagedFieldsEntry, len(mf))
	for i := range mf {
		mf[i].DeepCopyInto(&out[i])
	}
	return out, true
}

// put remembers out's managedFields under key when out is the request's
// object but for them (asked: the request's own managedFields; the field
// manager may have written its output into the request's object).
func (c *createMemo) put(key string, asked []metav1.ManagedFieldsEntry, out client.Object) {
	if b, ok := bareOf(out, asked); ok && strings.HasSuffix(key, "\x00"+string(b)) {
		c.keep(key, out.GetManagedFields())
	}
}

// bareOf is out's JSON with its managedFields set to asked.
func bareOf(out client.Object, asked []metav1.ManagedFieldsEntry) ([]byte, bool) {
	bare := out.DeepCopyObject().(client.Object)
	bare.SetManagedFields(asked)
	b, err := json.Marshal(bare)
	return b, err == nil
}

// keep remembers a copy of mf under key.
func (c *createMemo) keep(key string, mf []metav1.ManagedFieldsEntry) {
	kept := make([]metav1.ManagedFieldsEntry, len(mf))
	for i := range mf {
		mf[i].DeepCopyInto(&kept[i])
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCreateMemo {
		c.m = map[string][]metav1.ManagedFieldsEntry{}
	}
	c.m[key] = kept
}

// updateMemo remembers what the field manager made of an update, as
// createMemo does of a create: the same update of the same live object
// recurs in every run that shares the plan's start (each plan's fault-free
// references, and every plan until its first fault), and the field
// manager's Update of it is a function of the manager, the subresource and
// the two objects (managedFields included: the live object's entries, with
// their times, are the ones it keeps), through the kind's type converter,
// whose memo this is. No update draws from math/rand (skipNonAppliedManager
// draws only for a live object with no UID, a create). The key is a digest
// of those four, not their bytes (a helm release record is tens of
// kilobytes). Only an update whose output differs from its request's object
// in managedFields alone is remembered; times are the virtual clock's
// (virtualTimes) on every hit as on the miss.
type updateMemo struct {
	createMemo
}

// updateMemo is the memo of k's updates: the kind's own for a built-in kind
// (the kind table, and so its field managers, are the scheme's, shared by its
// servers); for a custom kind, whose Kind each server makes anew, the one of
// every kind served from the same CRD content at the same version with the
// same status subresource (its type converter is built once per content:
// schemacache.go), so that a custom resource's status writes are remembered
// across runs too.
func (s *Server) updateMemo(k *Kind) *updateMemo {
	if !k.Custom || k.crd.Schema == nil {
		return &k.fm.updates
	}
	k.fm.sharedOnce.Do(func() {
		k.fm.shared = &k.fm.updates
		tc, err := s.typeConverter(k)
		if err != nil {
			return
		}
		key := crUpdatesKey{tc: tc, gvk: k.GVK, status: k.Status}
		crUpdates.mu.Lock()
		defer crUpdates.mu.Unlock()
		m, ok := crUpdates.m[key]
		if !ok {
			if crUpdates.m == nil {
				crUpdates.m = map[crUpdatesKey]*updateMemo{}
			}
			m = &updateMemo{}
			crUpdates.m[key] = m
		}
		k.fm.shared = m
	})
	return k.fm.shared
}

type crUpdatesKey struct {
	tc     managedfields.TypeConverter
	gvk    schema.GroupVersionKind
	status bool
}

// crUpdates are the update memos of custom kinds, by type converter.
var crUpdates struct {
	mu sync.Mutex
	m  map[crUpdatesKey]*updateMemo
}

// updateKey is an update's key in the memo, and its request object's bytes
// (what put checks the output against).
type updateKey struct {
	key string
	in  []byte
	ok  bool
}

func newUpdateKey(manager, subresource string, live, in client.Object) updateKey {
	if live.GetUID() == "" {
		return updateKey{}
	}
	lb, err := json.Marshal(live)
	if err != nil {
		return updateKey{}
	}
	ib, err := json.Marshal(in)
	if err != nil {
		return updateKey{}
	}
	return updateKey{key: digest([]byte(manager), []byte(subresource), lb, ib), in: ib, ok: true}
}

// digest is the SHA-256 of parts, each preceded by its length (so that no
// two lists of parts have the same bytes).
func digest(parts ...[]byte) string {
	h := sha256.New()
	for _, part := range parts {
		var n [8]byte
		for i, l := 0, len(part); i < 8; i, l = i+1, l>>8 {
			n[i] = byte(l)
		}
		h.Write(n[:])
		h.Write(part)
	}
	return string(h.Sum(nil))
}

// put remembers out's managedFields under k when out is the request's
// object but for them (asked: the request's own managedFields).
func (c *updateMemo) put(k updateKey, asked []metav1.ManagedFieldsEntry, out client.Object) {
	if b, ok := bareOf(out, asked); ok && bytes.Equal(b, k.in) {
		c.keep(k.key, out.GetManagedFields())
	}
}
