package operatortest_test

import (
	"fmt"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"k8s.io/apimachinery/pkg/watch"
)

// A property that judges the watch log: History.Run().Log is every change
// the apiserver committed in the run, in order (an Added, Modified or
// Deleted event with the object as stored, its kind and resourceVersion,
// and the virtual instant it was committed at). This one says that the
// operator's Secret team/app-child, once made, is never deleted, and when
// it was: ViolatedAt places the violation at that instant of the run (its
// offset from History.Run().Start), not at the run's end.
func ExampleHistory_Run() {
	neverDeleted := world.Property{Name: "child-never-deleted", Check: func(h *world.History) error {
		run := h.Run()
		for _, ev := range run.Log {
			if ev.GVK.Kind != "Secret" || ev.Object.GetNamespace() != "team" || ev.Object.GetName() != "app-child" {
				continue
			}
			if ev.Type == watch.Deleted {
				return world.ViolatedAt(ev.At.Sub(run.Start),
					fmt.Errorf("Secret team/app-child deleted at resourceVersion %d", ev.ResourceVersion))
			}
		}
		return nil
	}}
	// In a test: operatortest.Run(t, operatortest.Options{..., Properties: []operatortest.Property{neverDeleted}})
	fmt.Println(neverDeleted.Name)
	// Output: child-never-deleted
}
