package process

import (
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"k8s.io/client-go/tools/cache"

	"github.com/ctrlsim/ctrlsim/sim/informer"
)

// sortedIndexer is a client-go informer's indexer whose lists come in the
// order of a shuffle drawn from the plan (Injector.ListOrder), applied to
// them in key order. client-go's own (threadSafeMap) lists by ranging over Go
// maps: a lister's List, an index's ByIndex, a store's ListKeys come in a new
// order at every call, and code that acts on the first or last of them or
// sorts them with ties (a ReplicaSet controller choosing which pods to
// delete, an operator scaling down "the last pod" of a list) meets another
// item each time. The map's order would make two runs of one plan differ;
// the plan's shuffle gives each call another order too, the same in every
// run of the plan. Without an order (nil) lists are in key order.
type sortedIndexer struct {
	cache.Indexer
	order informer.Order
}

func keyOf(obj any) string {
	k, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return ""
	}
	return k
}

func (s sortedIndexer) objects(objs []any) []any {
	slices.SortStableFunc(objs, func(a, b any) int { return strings.Compare(keyOf(a), keyOf(b)) })
	if s.order != nil {
		s.order(len(objs), func(i, j int) { objs[i], objs[j] = objs[j], objs[i] })
	}
	return objs
}

func (s sortedIndexer) strings(keys []string) []string {
	slices.Sort(keys)
	if s.order != nil {
		s.order(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	}
	return keys
}

func (s sortedIndexer) List() []any { return s.objects(s.Indexer.List()) }

func (s sortedIndexer) ListKeys() []string { return s.strings(s.Indexer.ListKeys()) }

func (s sortedIndexer) Index(indexName string, obj any) ([]any, error) {
	objs, err := s.Indexer.Index(indexName, obj)
	return s.objects(objs), err
}

func (s sortedIndexer) IndexKeys(indexName, indexedValue string) ([]string, error) {
	keys, err := s.Indexer.IndexKeys(indexName, indexedValue)
	return s.strings(keys), err
}

func (s sortedIndexer) ListIndexFuncValues(indexName string) []string {
	return s.strings(s.Indexer.ListIndexFuncValues(indexName))
}

func (s sortedIndexer) ByIndex(indexName, indexedValue string) ([]any, error) {
	objs, err := s.Indexer.ByIndex(indexName, indexedValue)
	return s.objects(objs), err
}

// sortedTxnIndexer is a sortedIndexer over an indexer that applies a batch
// of deltas at once (cache.TransactionStore), as client-go's does.
type sortedTxnIndexer struct {
	sortedIndexer
	txn cache.TransactionStore
}

func (s sortedTxnIndexer) Transaction(txns ...cache.Transaction) *cache.TransactionError {
	return s.txn.Transaction(txns...)
}

// sortIndexer gives the informer made by client-go's NewSharedIndexInformer
// a sortedIndexer listing in order in place of its own, before anything has asked for it (a
// lister, GetIndexer, the informer's Run): it is the indexer field of
// client-go v0.37.2's sharedIndexInformer, which the typed informers of its
// factories (Core().V1().Pods().Informer()) wrap in a
// typedSharedIndexInformer (followed through its embedded
// SharedIndexInformer). It reports whether the informer's indexer is sorted:
// an informer of another type is left as it is.
func sortIndexer(inf cache.SharedIndexInformer, order informer.Order) bool {
	v := reflect.ValueOf(inf)
	for {
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			return false
		}
		inner := v.Elem().FieldByName("SharedIndexInformer")
		if !inner.IsValid() || inner.Kind() != reflect.Interface || inner.IsNil() {
			break
		}
		v = inner.Elem() // a typed wrapper: the informer it wraps
	}
	f := v.Elem().FieldByName("indexer")
	if !f.IsValid() || f.Type() != reflect.TypeFor[cache.Indexer]() {
		return false
	}
	f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	idx, _ := f.Interface().(cache.Indexer)
	switch idx.(type) {
	case nil:
		return false
	case sortedIndexer, sortedTxnIndexer:
		return true
	}
	var sorted cache.Indexer = sortedIndexer{idx, order}
	if txn, ok := idx.(cache.TransactionStore); ok {
		sorted = sortedTxnIndexer{sortedIndexer{idx, order}, txn}
	}
	f.Set(reflect.ValueOf(&sorted).Elem())
	return true
}
