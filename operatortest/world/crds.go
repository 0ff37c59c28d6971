package world

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// Every cluster serves apiextensions.k8s.io/v1 CustomResourceDefinitions: an
// operator may create, read and delete them through its client or a
// clientset (the apiserver model installs a kind when its CRD is
// established, package apiserver crdserve.go). Run registers the type in
// Options.Scheme when it lacks it, once, before any world runs.

var schemeMu sync.Mutex

var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

func ensureCRDScheme(s *runtime.Scheme) error {
	schemeMu.Lock()
	defer schemeMu.Unlock()
	if s.Recognizes(crdGVK) {
		return nil
	}
	return apiextensionsv1.AddToScheme(s)
}

// PendingSeeds are seed objects (Options.Objects) of kinds no CRD serves yet:
// they are created, as an applier retrying them would, at the instant their
// kind is served (a CRD the operator creates at run time has become
// established), in the order given.
type PendingSeeds struct {
	c        *cluster.Cluster
	objs     []client.Object
	watched  bool
	retrying bool
	// Created are called with a seed's key (userKey) once it is created:
	// the user's steps on it wait until then (workload.go).
	Created []func(key string)
}

// Holds reports whether the seed object of key is still pending.
func (p *PendingSeeds) Holds(key string) bool {
	for _, o := range p.objs {
		if seedKey(p.c, o) == key {
			return true
		}
	}
	return false
}

// seedKey is the user's key (userKey) of a seed object.
func seedKey(c *cluster.Cluster, obj client.Object) string {
	gvk, err := apiutil.GVKForObject(obj, c.Server.Scheme())
	if err != nil {
		return ""
	}
	return UserKey(gvk, obj.GetNamespace(), obj.GetName())
}

// SeedRetry is how often a seed object whose conversion webhook failed (it
// is written in a version the webhook converts, and the process serving
// it is not up yet, or down) is created again, as an applier retries.
const SeedRetry = time.Second

// SeedsPending are the pending seeds of each running world's cluster.
var SeedsPending sync.Map // *cluster.Cluster -> *pendingSeeds

// neverServed is the error of a run that ended with seed objects whose kind
// was never served: the test gave objects that no run could create.
func neverServed(c *cluster.Cluster) error {
	v, ok := SeedsPending.LoadAndDelete(c)
	if !ok || len(v.(*PendingSeeds).objs) == 0 {
		return nil
	}
	p := v.(*PendingSeeds)
	var names, unconverted []string
	for _, o := range p.objs {
		name := fmt.Sprintf("%s %s", o.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(o))
		if gvk, err := apiutil.GVKForObject(o, p.c.Server.Scheme()); err == nil {
			if _, served := p.c.Server.KindFor(gvk); served {
				unconverted = append(unconverted, name)
				continue
			}
		}
		names = append(names, name)
	}
	if len(unconverted) > 0 {
		return fmt.Errorf("operatortest: Objects %v were never created: their CRD's conversion webhook failed until the end of the run", unconverted)
	}
	return fmt.Errorf("operatortest: Objects %v were never created: no CRD served their kind by the end of the run", names)
}

func (p *PendingSeeds) add(obj client.Object) {
	p.objs = append(p.objs, obj)
	if p.watched {
		return
	}
	p.watched = true
	SeedsPending.Store(p.c, p)
	p.c.Server.Watcher().Watch(crdGVK, func(apiserver.Event) {
		// After the write that installed the kind, at the same instant.
		p.c.Clock.AfterFunc(0, p.createServed)
	})
}

func (p *PendingSeeds) createServed() {
	var left []client.Object
	for _, obj := range p.objs {
		gvk, err := apiutil.GVKForObject(obj, p.c.Server.Scheme())
		if _, served := p.c.Server.KindFor(gvk); err != nil || !served {
			left = append(left, obj)
			continue
		}
		// Its result is in the trace (an admin call), as a workload step's.
		if err := CreateSeed(context.Background(), p.c, obj); unconverted(err) {
			left = append(left, obj)
			p.retry()
			continue
		}
		for _, f := range p.Created {
			f(seedKey(p.c, obj))
		}
	}
	p.objs = left
}

// retry creates the pending seeds again after SeedRetry.
func (p *PendingSeeds) retry() {
	if p.retrying {
		return
	}
	p.retrying = true
	p.c.Clock.AfterFunc(SeedRetry, func() {
		p.retrying = false
		p.createServed()
	})
}

// unconverted reports whether err is the refusal of a write in a version
// that the CRD's conversion webhook could not convert (kube-apiserver's 500
// "conversion webhook for ... failed").
func unconverted(err error) bool {
	return apierrors.IsInternalError(err) && strings.Contains(err.Error(), "conversion webhook for ")
}

// unserved reports whether err is the refusal of a create whose kind no CRD
// serves yet.
func unserved(err error) bool { return meta.IsNoMatchError(err) }

// CreateSeed creates a seed object as cluster admin and, when its kind's
// status subresource dropped the status it was given, writes that status
// (Options.Objects).
func CreateSeed(ctx context.Context, c *cluster.Cluster, obj client.Object) error {
	created := obj.DeepCopyObject().(client.Object)
	if err := c.Admin().Create(ctx, created); err != nil {
		return err
	}
	want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil || len(asMap(want["status"])) == 0 {
		return err
	}
	got, err := runtime.DefaultUnstructuredConverter.ToUnstructured(created)
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(got["status"], want["status"]) {
		return nil
	}
	got["status"] = want["status"]
	if u, ok := created.(*unstructured.Unstructured); ok {
		u.Object = got
	} else if err := runtime.DefaultUnstructuredConverter.FromUnstructured(got, created); err != nil {
		return err
	}
	if err := c.Admin().Status().Update(ctx, created); err != nil {
		return fmt.Errorf("writing the status of %T %s: %w", obj, client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// UserKey identifies an object for the user's order of steps: its group,
// kind, namespace and name.
func UserKey(gvk schema.GroupVersionKind, namespace, name string) string {
	gk := gvk.GroupKind().String()
	if namespace == "" {
		return gk + " " + name
	}
	return gk + " " + namespace + "/" + name
}
