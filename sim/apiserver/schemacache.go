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

// schemaCache remembers built values by key, starting over when full (a
// hit or a miss gives the same value: forgetting changes only the cost).
type schemaCache[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

const maxSchemaCache = 256

func (c *schemaCache[V]) get(key string, build func() (V, error)) (V, error) {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return v, err // not remembered: a wrong schema is refused each time
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxSchemaCache {
		c.m = map[string]V{}
	}
	c.m[key] = v
	return v, nil
}

var (
	crSchemas      schemaCache[*crSchema]
	typeConverters schemaCache[managedfields.TypeConverter]
)

// cachedCRSchema is newCRSchema(gvk, props), built once per content.
func cachedCRSchema(gvk schema.GroupVersionKind, props *apiextensionsv1.JSONSchemaProps) (*crSchema, error) {
	b, err := json.Marshal(props)
	if err != nil {
		return newCRSchema(gvk, props)
	}
	return crSchemas.get(gvk.String()+"\x00"+string(b), func() (*crSchema, error) { return newCRSchema(gvk, props) })
}

// cachedTypeConverter is build(), the type converter of the CRD definition
// def at version, built once per content.
func cachedTypeConverter(def *apiextensionsv1.CustomResourceDefinition, version string, build func() (managedfields.TypeConverter, error)) (managedfields.TypeConverter, error) {
	b, err := json.Marshal(def)
	if err != nil {
		return build()
	}
	return typeConverters.get(version+"\x00"+string(b), build)
}
