package kubeworld

// The tests of this file, with gaps_test.go's, show the Known gaps of
// doc.go, each as it is today: a change that closes a gap breaks its test,
// and the item goes with it.

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlsim/ctrlsim/sim/rng"
)

// Two pods of one generateName are known by how many of that prefix the
// kubelet met before them: met in the other order, they swap their draws.
func TestTwoPodsOfOnePrefixMetInTheOtherOrderSwapDraws(t *testing.T) {
	pod := func(name, uid string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, GenerateName: "web-", UID: types.UID(uid)}}
	}
	a, b := pod("web-abcde", "a"), pod("web-vwxyz", "b")
	draw := func(first, second *corev1.Pod) (time.Duration, time.Duration) {
		d := podDraws{src: rng.New(7), ids: map[types.UID]string{}, seen: map[string]int{}}
		x := d.of(first, "start").Duration(time.Second, time.Minute)
		y := d.of(second, "start").Duration(time.Second, time.Minute)
		if first == a {
			return x, y
		}
		return y, x
	}
	a1, b1 := draw(a, b)
	a2, b2 := draw(b, a)
	if a1 == b1 {
		t.Fatalf("both pods drew %v: the test shows nothing", a1)
	}
	if a1 != b2 || b1 != a2 {
		t.Errorf("a then b drew %v, %v; b then a drew %v, %v: want the draws swapped", a1, b1, a2, b2)
	}
}
