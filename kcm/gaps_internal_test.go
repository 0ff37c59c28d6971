package kcm

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/kubernetes/pkg/controller/job"
)

func TestAQueueFieldRenamedUpstreamFailsWithThePathLookedFor(t *testing.T) {
	type controller struct {
		workqueue workqueue.TypedRateLimitingInterface[string]
	}
	err := simQueue[string](&host{}, &controller{}, "queue")
	if err == nil || !strings.Contains(err.Error(), "queue [queue]") || !strings.Contains(err.Error(), "has no field queue") {
		t.Fatalf("a controller without the field: %v, want the path it looked for", err)
	}
}

func TestTheJobControllersOrphanQueueTakesNoSimulatorQueue(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := fake.NewClientset()
	f := informers.NewSharedInformerFactory(cs, 0)
	c, err := job.NewController(ctx, cs, f.Core().V1().Pods(), f.Batch().V1().Jobs(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, name := range []string{"queue", "orphanQueue"} {
			if v, err := field(reflect.ValueOf(c), name); err == nil {
				if q, ok := v.Interface().(interface{ ShutDown() }); ok {
					q.ShutDown()
				}
			}
		}
	}()
	err = simQueue[string](&host{}, c, "orphanQueue")
	if err == nil || !strings.Contains(err.Error(), "orphanPodKey") || !strings.Contains(err.Error(), "not a rate-limiting workqueue") {
		t.Fatalf("the orphan queue as the simulator's: %v, want it refused for its unexported item type", err)
	}
}
