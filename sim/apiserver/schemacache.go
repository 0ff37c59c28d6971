package apiserver

import (
	"encoding/json"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
)

// What kube-apiserver builds once per CRD and shares between every request
// of its kind (the CRD handler's crdInfo: the structural schema, the
// validators, the CEL programs, the field manager's type converter) is
// built here once per CRD content for every server of the process: each
// run's server installs the same CRDs again, and building them was a
// quarter of a CronJob-sized operator's run (examples/cronjob: 12% the
// schema and validators, 13% the type converter). The key is the content
// the result is a function of (the version's schema, or the definition the
// converter is built from); the values are read-only after they are built,
// as the apiserver's are.

// schemaCache remembers built values by content, and by the pointer the
// content came in (a test's CRDs are parsed once and installed by every
// run: the pointer spares encoding a large schema at every install), starting
// over when full (a hit or a miss gives the same value: forgetting changes
// only the cost). A pointer in the map keeps its object alive, so no other
// content can come at its address; the CRDs given to servers are not
// changed after (Options.CRDs).
type schemaCache[P comparable, V any] struct {
	mu        sync.Mutex
	byContent map[string]V
	byPointer map[P]V
}

const maxSchemaCache = 256

func (c *schemaCache[P, V]) get(ptr P, content func() (string, bool), build func() (V, error)) (V, error) {
	c.mu.Lock()
	v, ok := c.byPointer[ptr]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	key, keyed := content()
	if keyed {
		c.mu.Lock()
		v, ok = c.byContent[key]
		c.mu.Unlock()
	}
	if !ok {
		var err error
		if v, err = build(); err != nil {
			return v, err // not remembered: a wrong schema is refused each time
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byPointer == nil || len(c.byPointer) >= maxSchemaCache || len(c.byContent) >= maxSchemaCache {
		c.byPointer, c.byContent = map[P]V{}, map[string]V{}
	}
	c.byPointer[ptr] = v
	if keyed {
		c.byContent[key] = v
	}
	return v, nil
}

// jsonKey is a content key of v's JSON, prefixed.
func jsonKey(prefix string, v any) func() (string, bool) {
	return func() (string, bool) {
		b, err := json.Marshal(v)
		return prefix + "\x00" + string(b), err == nil
	}
}

// crdPointers is what a CRD's type converter is built from, by identity.
type crdPointers struct {
	schema     *apiextensionsv1.JSONSchemaProps
	definition *apiextensionsv1.CustomResourceDefinition
	gvk        schema.GroupVersionKind
	plural     string
	namespaced bool
	status     bool
	version    string // the served version converted
}

type schemaPointer struct {
	props *apiextensionsv1.JSONSchemaProps
	gvk   schema.GroupVersionKind
}

var (
	crSchemas      schemaCache[schemaPointer, *crSchema]
	typeConverters schemaCache[crdPointers, managedfields.TypeConverter]
)

// cachedCRSchema is newCRSchema(gvk, props), built once per content.
func cachedCRSchema(gvk schema.GroupVersionKind, props *apiextensionsv1.JSONSchemaProps) (*crSchema, error) {
	return crSchemas.get(schemaPointer{props, gvk}, jsonKey(gvk.String(), props), func() (*crSchema, error) { return newCRSchema(gvk, props) })
}

// cachedTypeConverter is build(), the type converter of crd's definition
// def at version, built once per content.
func cachedTypeConverter(crd CRD, def *apiextensionsv1.CustomResourceDefinition, version string, build func() (managedfields.TypeConverter, error)) (managedfields.TypeConverter, error) {
	ptr := crdPointers{crd.Schema, crd.Definition, crd.GVK, crd.Plural, crd.Namespaced, crd.Status, version}
	return typeConverters.get(ptr, jsonKey(version, def), build)
}
