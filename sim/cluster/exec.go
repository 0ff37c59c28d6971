package cluster

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlsim/ctrlsim/sim/restapi"
)

// fileKey names the files of one container of one pod (by uid: a pod
// re-created under the same name starts with none).
type fileKey struct {
	pod       types.UID
	container string
}

// withFiles gives the handlers of h the files of the container they run in
// (ExecRequest.Files): state a fake CLI keeps in its container, for the
// pod's life, in this world only.
func (c *Cluster) withFiles(h restapi.ExecHandlers) restapi.ExecHandlers {
	if h == nil {
		return nil
	}
	return func(pod *corev1.Pod, container string) restapi.ExecHandler {
		inner := h(pod, container)
		if inner == nil {
			return nil
		}
		return func(ctx context.Context, req restapi.ExecRequest) restapi.ExecResult {
			req.Files = c.files(req.Pod.UID, req.Container)
			return inner(ctx, req)
		}
	}
}

func (c *Cluster) files(uid types.UID, container string) map[string]string {
	if c.containerFiles == nil {
		c.containerFiles = map[fileKey]map[string]string{}
	}
	k := fileKey{uid, container}
	f, ok := c.containerFiles[k]
	if !ok {
		f = map[string]string{}
		c.containerFiles[k] = f
	}
	return f
}

// ContainerFiles are the files the exec handlers keep in a container of pod
// (by its uid), for properties: nil when no exec ran there.
func (c *Cluster) ContainerFiles(pod *corev1.Pod, container string) map[string]string {
	return c.containerFiles[fileKey{pod.UID, container}]
}
