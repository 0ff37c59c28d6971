// Package sim is temporary: it pins dependencies until their users land.
package sim

import (
	_ "github.com/evanphx/json-patch/v5"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/onsi/ginkgo/v2"
	_ "github.com/onsi/gomega"
	_ "gopkg.in/evanphx/json-patch.v4"
	_ "k8s.io/apimachinery/pkg/util/strategicpatch"
	_ "k8s.io/client-go/kubernetes/scheme"
	_ "k8s.io/client-go/tools/cache"
	_ "k8s.io/client-go/util/workqueue"
	_ "k8s.io/utils/clock"
	_ "pgregory.net/rapid"
	_ "sigs.k8s.io/controller-runtime/pkg/client"
	_ "sigs.k8s.io/controller-runtime/pkg/client/fake"
	_ "sigs.k8s.io/controller-runtime/pkg/envtest"
	_ "sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	_ "sigs.k8s.io/controller-runtime/pkg/handler"
	_ "sigs.k8s.io/controller-runtime/pkg/predicate"
	_ "sigs.k8s.io/controller-runtime/pkg/manager"
)
