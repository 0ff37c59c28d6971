package process

// The tests of this file show the Known gaps of doc.go that only the
// package's own names reach, each as it is today: a change that closes a gap
// breaks its test, and the item goes with it.

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/util/watchlist"
)

// client-go v0.37's reflectors watch-list by default; the ordered factories'
// clients say they cannot, so their reflectors list and then watch.
func TestTheOrderedFactoriesClientsSayTheyCannotWatchList(t *testing.T) {
	for name, c := range map[string]any{ // lint:order-independent each case on its own
		"typed":    listThenWatch{fake.NewClientset()},
		"dynamic":  listThenWatchDynamic{dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())},
		"metadata": listThenWatchMetadata{metadatafake.NewSimpleMetadataClient(runtime.NewScheme())},
	} {
		if !watchlist.DoesClientNotSupportWatchListSemantics(c) {
			t.Errorf("the %s client of the ordered factories supports watch-list", name)
		}
	}
}
