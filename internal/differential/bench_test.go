package differential

import (
	"testing"
	"time"
)

// benchScript is a plain workload: ConfigMap and Widget writes and reads by the admin,
// with no RBAC writes (SettleRBAC) and no creates in a missing namespace (which a real
// server's NamespaceLifecycle admission delays by 50ms).
func benchScript() []Op {
	ops := []Op{{Verb: Create, Kind: Namespace, Namespace: "a"}}
	for _, k := range []string{ConfigMap, Widget} {
		for _, name := range []string{"one", "two"} {
			ops = append(ops,
				Op{Verb: Create, Kind: k, Namespace: "a", Name: name, V: 1},
				Op{Verb: Get, Kind: k, Namespace: "a", Name: name},
				Op{Verb: Update, Kind: k, Namespace: "a", Name: name, Mutation: SetContent, V: 2},
				Op{Verb: MergePatch, Kind: k, Namespace: "a", Name: name, Mutation: SetLabel},
				Op{Verb: List, Kind: k, Namespace: "a"},
				Op{Verb: Delete, Kind: k, Namespace: "a", Name: name},
			)
		}
	}
	return ops
}

// BenchmarkWorkload runs the same script on the model and on envtest; the metric
// ns/api-op is the wall time per API request.
func BenchmarkWorkload(b *testing.B) {
	ops := benchScript()
	b.Run("model", func(b *testing.B) {
		for b.Loop() {
			runSide(ctx, NewModel(), nextNames(), ops, Tolerances{})
		}
		b.ReportMetric(float64(b.Elapsed())/float64(b.N*len(ops)), "ns/api-op")
	})
	b.Run("envtest", func(b *testing.B) {
		r := needReal(b)
		var total time.Duration
		for b.Loop() {
			_, d := runSide(ctx, r, nextNames(), ops, Tolerances{})
			total += d
		}
		b.ReportMetric(float64(total)/float64(b.N*len(ops)), "ns/api-op")
	})
}
