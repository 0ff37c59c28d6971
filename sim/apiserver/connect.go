package apiserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Connect admits a connect request on a pod (subresource exec, attach or
// portforward) as kube-apiserver's pod registry does before it proxies the
// stream to the kubelet: authorization of create on pods/<subresource> (the
// verb of the POST that client-go's SPDY executor sends), injected faults,
// the pod (404 when it is missing), the container (the registry's
// validateContainer; not for portforward) and the node the pod is bound to.
// It returns a copy of the pod and the container's name; what runs on the
// node (is the container running?) is the caller's to decide, as the
// kubelet's.
//
// done, called once the connection's work is done (the command ran), returns
// the 504 timeout of an ambiguous fault matching the request: the command
// took effect and the client is told it timed out.
func (s *Server) Connect(u User, subresource, namespace, name, container string) (pod *corev1.Pod, containerName string, done func() error, err error) {
	pod = &corev1.Pod{}
	r, err := s.request(u, "create", subresource, pod, namespace, name)
	if err != nil {
		return nil, "", nil, err
	}
	if err := s.admit(r); err != nil {
		return nil, "", nil, err
	}
	stored, ok := s.store(r.Kind).get(objectKey{r.Namespace, name})
	if !ok {
		return nil, "", nil, apierrors.NewNotFound(r.Kind.GroupResource(), name)
	}
	copyInto(pod, stored)
	if subresource != "portforward" {
		if container, err = validateContainer(container, pod); err != nil {
			return nil, "", nil, err
		}
	}
	if pod.Spec.NodeName == "" {
		return nil, "", nil, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", name))
	}
	return pod, container, func() error { return s.ambiguous(r) }, nil
}

// validateContainer is the pod registry's check of a connect request's
// container (k8s.io/kubernetes pkg/registry/core/pod/strategy.go): empty
// names the pod's only container; otherwise it must be one of the pod's
// containers (init and ephemeral ones included).
func validateContainer(container string, pod *corev1.Pod) (string, error) {
	if container == "" {
		switch len(pod.Spec.Containers) {
		case 1:
			return pod.Spec.Containers[0].Name, nil
		case 0:
			return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Name))
		default:
			var names []string
			for _, c := range pod.Spec.InitContainers {
				names = append(names, c.Name)
			}
			for _, c := range pod.Spec.Containers {
				names = append(names, c.Name)
			}
			for _, c := range pod.Spec.EphemeralContainers {
				names = append(names, c.Name)
			}
			return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %s", pod.Name, names))
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if c.Name == container {
			return container, nil
		}
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == container {
			return container, nil
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == container {
			return container, nil
		}
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, pod.Name))
}
