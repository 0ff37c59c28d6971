package differential

import (
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// Stored times have their serialized precision on a real server and on the model
// (sim/apiserver/times_test.go has one test per write path on the model): a
// response carries metav1.Time in seconds and metav1.MicroTime in microseconds,
// and a write that changes a time only below that precision writes nothing (the
// real server compares the serialized bytes).
func TestTimesHaveTheSerializedPrecisionOnBoth(t *testing.T) {
	real := needReal(t)
	base := time.Date(2025, 1, 1, 0, 0, 1, 234567891, time.UTC)
	for i, side := range []struct {
		name string
		cl   func() (client.Client, error)
	}{
		{"model", func() (client.Client, error) { return NewModel().Client(apiserver.Admin) }},
		{"kube-apiserver", func() (client.Client, error) { return real.Client(apiserver.Admin) }},
	} {
		t.Run(side.name, func(t *testing.T) {
			cl, err := side.cl()
			if err != nil {
				t.Fatal(err)
			}
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			ns := fmt.Sprintf("times-%d-%d", nextNames().Run, i)
			must(cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
			l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "l"}}
			l.Spec.RenewTime = &metav1.MicroTime{Time: base}
			must(cl.Create(ctx, l))
			if want := base.Truncate(time.Microsecond); !l.Spec.RenewTime.Time.Equal(want) {
				t.Errorf("renewTime = %v, want %v", l.Spec.RenewTime.Time, want)
			}
			rv := l.ResourceVersion
			l.Spec.RenewTime = &metav1.MicroTime{Time: base.Add(100 * time.Nanosecond)} // same microsecond
			must(cl.Update(ctx, l))
			if l.ResourceVersion != rv {
				t.Errorf("an update within the microsecond wrote: resourceVersion %s -> %s", rv, l.ResourceVersion)
			}

			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
			must(cl.Create(ctx, p))
			p.Status.StartTime = &metav1.Time{Time: base}
			must(cl.Status().Update(ctx, p))
			if want := base.Truncate(time.Second); !p.Status.StartTime.Time.Equal(want) {
				t.Errorf("status.startTime = %v, want %v", p.Status.StartTime.Time, want)
			}
			rv = p.ResourceVersion
			p.Status.StartTime = &metav1.Time{Time: base.Add(500 * time.Millisecond)} // same second
			must(cl.Status().Update(ctx, p))
			if p.ResourceVersion != rv {
				t.Errorf("a status update within the second wrote: resourceVersion %s -> %s", rv, p.ResourceVersion)
			}
		})
	}
}
