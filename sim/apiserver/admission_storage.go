package apiserver

import (
	"context"
	"fmt"

	"k8s.io/apiserver/pkg/admission"
	"k8s.io/kubernetes/plugin/pkg/admission/storage/storageobjectinuseprotection"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SetStorageObjectInUseProtection turns kube-apiserver's
// StorageObjectInUseProtection admission plugin on or off (off in a new
// server). On, every PersistentVolumeClaim created from then on gets the
// kubernetes.io/pvc-protection finalizer and every PersistentVolume the
// kubernetes.io/pv-protection one. kube-apiserver has it on by default; a
// world turns it on with the controllers that remove those finalizers
// (kcm.Setup, with kube-controller-manager's pvc-protection controller), as a
// cluster without them runs with the plugin disabled
// (--disable-admission-plugins), or its claims would never go.
func (s *Server) SetStorageObjectInUseProtection(on bool) { s.storageProtection = on }

// storageProtectionPlugin is kube-apiserver's StorageObjectInUseProtection
// admission plugin (k8s.io/kubernetes@v1.37.2
// plugin/pkg/admission/storage/storageobjectinuseprotection, on by default),
// hosted: it gives every PersistentVolumeClaim created the
// kubernetes.io/pvc-protection finalizer and every PersistentVolume the
// kubernetes.io/pv-protection one, which kube-controller-manager's
// pvc-protection and pv-protection controllers remove once nothing uses the
// volume.
var storageProtectionPlugin = func() admission.MutationInterface {
	plugins := admission.NewPlugins()
	storageobjectinuseprotection.Register(plugins)
	p, err := plugins.InitPlugin(storageobjectinuseprotection.PluginName, nil, admission.PluginInitializers{})
	if err != nil {
		panic(fmt.Sprintf("apiserver: StorageObjectInUseProtection: %v", err))
	}
	return p.(admission.MutationInterface)
}()

// storageObjectInUseProtection runs storageProtectionPlugin, when on, on the create of obj,
// a claim or a volume (other kinds pass), on its internal type as
// kube-apiserver's admission chain sees it, between the create's field
// tracking and the mutating webhooks (the in-tree plugins come first).
func (s *Server) storageObjectInUseProtection(r Request, obj client.Object) error {
	if !s.storageProtection || r.Kind.GVK.Group != "" || r.Kind.GVK.Version != "v1" || (r.Kind.GVK.Kind != "PersistentVolumeClaim" && r.Kind.GVK.Kind != "PersistentVolume") || r.Kind.Unstructured() {
		return nil
	}
	in, err := toInternal(r.Kind, obj)
	if err != nil {
		return fmt.Errorf("apiserver: StorageObjectInUseProtection: %w", err)
	}
	gvr := r.Kind.GVK.GroupVersion().WithResource(r.Kind.Resource)
	attrs := admission.NewAttributesRecord(in, nil, r.Kind.GVK, r.Namespace, obj.GetName(), gvr, r.Subresource, admission.Create, nil, false, nil)
	if err := storageProtectionPlugin.Admit(context.Background(), attrs, nil); err != nil {
		return err
	}
	return fromInternal(in, obj)
}
