package world

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
)

// ExecHandler runs a command the operator execs in a container (pods/exec or
// pods/attach through mgr.GetConfig(), with client-go's remotecommand
// executor, unchanged): a fake of the operand's CLI. It keeps its state in
// req.Files, the container's files, which live as long as the pod; a
// property reads them back with History.ContainerFiles. It must not call
// into the simulator.
type ExecHandler = restapi.ExecHandler

// ExecRequest is one command run in a container; ExecResult how it ended.
type (
	ExecRequest = restapi.ExecRequest
	ExecResult  = restapi.ExecResult
)

// execFaults are the faults an exec meets in a real cluster, drawn as the
// plan's API faults when the test gives Exec: the apiserver or the kubelet
// fails the request (nothing ran), or the stream times out after the command
// ran (the client sees a timeout).
var execFaults = []apiserver.Fault{
	{Verb: "create", Resource: "pods", Subresource: "exec", Code: 500},
	{Verb: "create", Resource: "pods", Subresource: "exec", Ambiguous: true},
}

// ExecHandlers finds a container's handler in Options.Exec: by the
// container's name, else by its image, else by its image without tag or
// digest.
func (o Options) ExecHandlers() restapi.ExecHandlers {
	if len(o.Exec) == 0 {
		return nil
	}
	return func(pod *corev1.Pod, container string) restapi.ExecHandler {
		if h, ok := o.Exec[container]; ok {
			return h
		}
		image := ""
		for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
			for _, c := range cs {
				if c.Name == container {
					image = c.Image
				}
			}
		}
		if image == "" {
			return nil
		}
		if h, ok := o.Exec[image]; ok {
			return h
		}
		repo, _, _ := strings.Cut(image, "@")
		if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
			repo = repo[:i]
		}
		return o.Exec[repo]
	}
}

// ignoresSIGTERM reports whether Options.IgnoreSIGTERM names container c
// of a pod: by its name, its image, or its image without tag or digest.
func (o Options) ignoresSIGTERM(_ *corev1.Pod, c corev1.Container) bool {
	repo, _, _ := strings.Cut(c.Image, "@")
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	return slices.ContainsFunc(o.IgnoreSIGTERM, func(n string) bool { return n == c.Name || n == c.Image || n == repo })
}

// validateExec refuses an Exec or IgnoreSIGTERM entry that can never match.
func (o Options) validateExec() error {
	if slices.Contains(o.IgnoreSIGTERM, "") {
		return fmt.Errorf("Options.IgnoreSIGTERM: an empty container name or image")
	}
	for k, h := range o.Exec {
		if k == "" || h == nil {
			return fmt.Errorf("Options.Exec: an entry with an empty container name or image, or a nil handler")
		}
	}
	return nil
}

// ContainerFiles are the files the exec handlers kept in a container of a pod
// of the final state (ExecRequest.Files): nil when the pod is gone or no
// exec ran in it.
func (h *History) ContainerFiles(namespace, pod, container string) map[string]string {
	p := &corev1.Pod{}
	if err := h.c.Get(client.ObjectKey{Namespace: namespace, Name: pod}, p); err != nil {
		return nil
	}
	return h.c.ContainerFiles(p, container)
}
