package restapi

import (
	"bytes"
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// The documents are bytes for a trace and a hash: two builds of the same
// kinds give the same bytes (no map order reaches them), v2 and each v3
// group version alike.
func TestTheBuiltInOpenAPIDocumentsAreTheSameBytesWhenBuiltTwice(t *testing.T) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	tr := New(nil, apiserver.New(apiserver.Options{Scheme: s, Clock: clock.New(clock.Epoch)}), "op", nil)
	gvs, kinds := tr.servedGroupVersions()
	var all []*apiserver.Kind
	for _, gv := range gvs {
		all = append(all, kinds[gv]...)
	}
	for _, gv := range []schema.GroupVersion{{Group: "apps", Version: "v1"}} {
		a, err := buildBuiltinV3(gv, kinds[gv])
		if err != nil {
			t.Fatal(err)
		}
		b, err := buildBuiltinV3(gv, kinds[gv])
		if err != nil {
			t.Fatal(err)
		}
		if a.etag != b.etag {
			t.Fatalf("two builds of %s's v3 document differ", gv)
		}
		pa, err := a.protobuf()
		if err != nil {
			t.Fatal(err)
		}
		pb, _ := b.protobuf()
		if !bytes.Equal(pa, pb) {
			t.Fatalf("two builds of %s's v3 protobuf differ", gv)
		}
	}
	var docs [2][]byte
	for i := range docs {
		sw, err := buildBuiltinV2(all)
		if err != nil {
			t.Fatal(err)
		}
		if docs[i], err = json.Marshal(sw); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(docs[0], docs[1]) {
		t.Fatal("two builds of the v2 document differ")
	}
}
