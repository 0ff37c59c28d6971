package operatortest_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest"
)

// Every field of Options whose type is one of ctrlsim's (a part's: world,
// canon) has a name in operatortest, so that a test fills its Options
// importing operatortest alone (issue 53: Options.Shard was world.Shard).
// A new field of a part's type fails this test until its alias is here.
func TestEveryOptionsFieldsTypeHasANameInOperatortest(t *testing.T) {
	named := map[reflect.Type]string{}
	for _, v := range []any{operatortest.Manager{}, operatortest.Property{}, operatortest.Shard{}, operatortest.HistoryObjects{},
		operatortest.NondeterministicField{}, operatortest.Workload{}, operatortest.System{}, operatortest.ExecHandler(nil), operatortest.Faults{}} {
		named[reflect.TypeOf(v)] = reflect.TypeOf(v).Name()
	}
	opts := reflect.TypeFor[operatortest.Options]()
	for i := range opts.NumField() {
		f := opts.Field(i)
		ty := f.Type
		for ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map || ty.Kind() == reflect.Pointer {
			ty = ty.Elem()
		}
		if !f.IsExported() || !strings.HasPrefix(ty.PkgPath(), "github.com/ctrlsim/ctrlsim/") {
			continue
		}
		if _, ok := named[ty]; !ok {
			t.Errorf("Options.%s is of type %s.%s, which operatortest does not name", f.Name, ty.PkgPath(), ty.Name())
		}
	}
	o := operatortest.Options{Shard: operatortest.Shard{Index: 1, Count: 2},
		Faults: operatortest.Faults{Processes: []string{operatortest.KubeControllerManager}}}
	if o.Shard.String() == "" || o.Faults.Processes[0] != "kube-controller-manager" {
		t.Errorf("Options filled with operatortest's names: %+v", o)
	}
}
