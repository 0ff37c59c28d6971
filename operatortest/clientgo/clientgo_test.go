package clientgo_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
)

// Setup gives a start function the typed, dynamic and metadata
// informer factories on the process's REST config: each syncs, and its
// lister has the seed ConfigMap, in every start of the process (a crash
// restarts it); so does an informer of the operator's own (InformerFor)
// through its indexer.
func TestSetupGivesTheThreeFactories(t *testing.T) {
	file := filepath.Join(t.TempDir(), "crash.plan")
	if err := os.WriteFile(file, []byte("seed 1\ncrash process=cg at=50ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("ctrlsim.plan", file); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("ctrlsim.plan", "")
	var seen [][]string
	gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
	o := operatortest.Options{
		Scheme:  clientgoscheme.Scheme,
		Workers: 1,
		Managers: []operatortest.Manager{{Name: "cg", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			// InformerFor with the operator's own informer (an indexer of its own),
			// first: the typed accessor then shares it, as in client-go.
			byApp := env.InformerFactory.InformerFor(&corev1.ConfigMap{}, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
				return coreinformers.NewConfigMapInformer(c, "", resync, cache.Indexers{"app": func(obj any) ([]string, error) {
					return []string{obj.(*corev1.ConfigMap).Labels["app"]}, nil
				}})
			}).GetIndexer()
			typed := env.InformerFactory.Core().V1().ConfigMaps().Lister()
			dyn := env.DynamicInformerFactory.ForResource(gvr).Lister()
			md := env.MetadataInformerFactory.ForResource(gvr).Lister()
			env.InformerFactory.Start(ctx.Done())
			env.DynamicInformerFactory.Start(ctx.Done())
			env.MetadataInformerFactory.Start(ctx.Done())
			env.InformerFactory.WaitForCacheSync(ctx.Done())
			env.DynamicInformerFactory.WaitForCacheSync(ctx.Done())
			env.MetadataInformerFactory.WaitForCacheSync(ctx.Done())
			// The app's (the namespace holds the cluster's kube-root-ca.crt too).
			shop := labels.SelectorFromSet(labels.Set{"app": "shop"})
			var names []string
			if cms, err := typed.ConfigMaps("shop").List(shop); err == nil && len(cms) == 1 {
				names = append(names, "typed "+cms[0].Name)
			}
			if objs, err := dyn.ByNamespace("shop").List(shop); err == nil && len(objs) == 1 {
				names = append(names, "dynamic "+objs[0].(metav1.Object).GetName())
			}
			if objs, err := md.ByNamespace("shop").List(shop); err == nil && len(objs) == 1 {
				names = append(names, "metadata "+objs[0].(*metav1.PartialObjectMetadata).Name)
			}
			if objs, err := byApp.ByIndex("app", "shop"); err == nil && len(objs) == 1 {
				names = append(names, "indexed "+objs[0].(*corev1.ConfigMap).Name)
			}
			seen = append(seen, names)
			<-ctx.Done()
			return nil
		})}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Labels: map[string]string{"app": "shop"}}}},
	}
	if _, err := operatortest.Explore(t, o); err != nil {
		t.Fatal(err)
	}
	want := []string{"typed web", "dynamic web", "metadata web", "indexed web"}
	if len(seen) == 0 {
		t.Fatal("the start function never ran")
	}
	for i, names := range seen {
		if !slices.Equal(names, want) {
			t.Errorf("start %d saw %q, want %q", i+1, names, want)
		}
	}
}
