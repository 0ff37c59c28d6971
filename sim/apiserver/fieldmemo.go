package apiserver

import (
	"encoding/json"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// createMemo remembers what the field manager made of a create of a
// built-in kind: the managedFields of the request's object (its bytes, the
// subresource and the manager name the key), so that the same create in
// another run (every run creates the default namespaces, the test's seed
// objects and, most often, the same children) costs one encoding instead of
// structured-merge-diff's typed conversion and set algebra (12% of an
// exploration's CPU before, twowrites). The field manager's Update of a
// create is a function of those alone: the live object is a new one of the
// kind, and the type converter of a built-in kind is the scheme's (the
// kind's table is per scheme). Only a create whose output differs from its
// input in managedFields alone is remembered; times are the virtual clock's
// (virtualTimes) on every hit as on the miss.
type createMemo struct {
	mu sync.Mutex
	m  map[string][]metav1.ManagedFieldsEntry
}

// maxCreateMemo bounds a kind's memo: when full it starts over (a memo hit
// or miss gives the same object, so forgetting changes only the cost).
const maxCreateMemo = 4096

func createKey(subresource, manager string, obj client.Object) (string, bool) {
	b, err := json.Marshal(obj)
	if err != nil {
		return "", false
	}
	return subresource + "\x00" + manager + "\x00" + string(b), true
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
	mf := out.GetManagedFields()
	bare := out.DeepCopyObject().(client.Object)
	bare.SetManagedFields(asked)
	b, err := json.Marshal(bare)
	if err != nil || !strings.HasSuffix(key, "\x00"+string(b)) {
		return
	}
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
