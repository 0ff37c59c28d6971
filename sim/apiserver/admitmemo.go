package apiserver

import (
	"encoding/json"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// admitMemo remembers what a custom resource's schema made of a write it
// admitted: the pruned and defaulted object. Every run writes the same
// custom resources (the seeds, the operator's status writes of the plan's
// start and of each fault-free reference), and admit (pruning, defaulting,
// OpenAPI and CEL validation, ratcheting against the old object) is a
// function of the schema, whose memo this is (a crSchema is shared by every
// server of the process that serves the same CRD content: schemacache.go),
// the kind's version and status subresource, the subresource written, and
// the request's and old object's bytes. Its key is a digest of those. Only an
// admitted write is remembered: a refused one is judged again, so that the
// error each run returns is its own.
type admitMemo struct {
	mu sync.Mutex
	m  map[string]map[string]any // the admitted object, as unstructured content
}

// maxAdmitMemo bounds a schema's memo: when full it starts over (a hit or a
// miss gives the same object, so forgetting changes only the cost).
const maxAdmitMemo = 4096

// admitKey is the memo's key of a write of obj over old (nil: a create).
func admitKey(k *Kind, obj, old client.Object, subresource string) (string, bool) {
	_, isU := obj.(*unstructured.Unstructured)
	flags := []byte{0, 0, 0}
	if isU {
		flags[0] = 1
	}
	if k.Status {
		flags[1] = 1
	}
	parts := [][]byte{flags, []byte(k.GVK.String()), []byte(subresource), []byte(reflect.TypeOf(obj).String())}
	b, err := json.Marshal(obj)
	if err != nil {
		return "", false
	}
	parts = append(parts, b)
	if old != nil {
		flags[2] = 1
		if b, err = json.Marshal(old); err != nil {
			return "", false
		}
		parts = append(parts, b)
	}
	return digest(parts...), true
}

func (c *admitMemo) get(key string) (map[string]any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	u, ok := c.m[key]
	if !ok {
		return nil, false
	}
	return runtime.DeepCopyJSON(u), true
}

// put remembers u, the content admit wrote into the request's object, under
// key.
func (c *admitMemo) put(key string, u map[string]any) {
	kept, ok := copyJSON(u)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxAdmitMemo {
		c.m = map[string]map[string]any{}
	}
	c.m[key] = kept
}

// setAdmitted writes a remembered admission's object u into obj, as admit
// writes its own result.
func setAdmitted(obj client.Object, u map[string]any) error {
	if uobj, ok := obj.(*unstructured.Unstructured); ok {
		// admit works on the request's own map: so does a hit.
		if uobj.Object == nil {
			uobj.Object = u
			return nil
		}
		clear(uobj.Object)
		for k, v := range u { // lint:order-independent a map is filled
			uobj.Object[k] = v
		}
		return nil
	}
	return setTyped(obj, u)
}

// copyJSON is runtime.DeepCopyJSON, false where the content holds a value JSON
// does not (an int a program put there), which DeepCopyJSON refuses with a
// panic.
func copyJSON(u map[string]any) (out map[string]any, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	return runtime.DeepCopyJSON(u), true
}
