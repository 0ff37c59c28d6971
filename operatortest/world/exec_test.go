package world_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// A container's handler is found by its name, else its image, else its image
// without tag or digest; a container none names has none.
func TestExecHandlersMatchContainerNameThenImage(t *testing.T) {
	mark := func(s string) world.ExecHandler {
		return func(context.Context, world.ExecRequest) world.ExecResult { return world.ExecResult{Stdout: []byte(s)} }
	}
	o := world.Options{Exec: map[string]world.ExecHandler{"db": mark("by name"), "reg.io/cache:7": mark("by image"), "reg.io/web": mark("by repository")}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "db", Image: "reg.io/cache:7"}, {Name: "cache", Image: "reg.io/cache:7"},
		{Name: "web", Image: "reg.io/web:1.2@sha256:abc"}, {Name: "other", Image: "reg.io/other:1"},
	}}}
	find := o.ExecHandlers()
	for container, want := range map[string]string{"db": "by name", "cache": "by image", "web": "by repository", "other": ""} {
		h := find(pod, container)
		got := ""
		if h != nil {
			got = string(h(context.Background(), world.ExecRequest{}).Stdout)
		}
		if got != want {
			t.Errorf("container %s: handler %q, want %q", container, got, want)
		}
	}
}

// An Exec entry that can never match fails the test before anything runs.
func TestAnEmptyExecEntryIsRefused(t *testing.T) {
	o := world.Options{Scheme: clientgoscheme.Scheme, Managers: []world.Manager{{Name: "op", Setup: func(manager.Manager) error { return nil }}},
		Exec: map[string]world.ExecHandler{"": func(context.Context, world.ExecRequest) world.ExecResult { return world.ExecResult{} }}}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "Options.Exec") {
		t.Fatalf("validate: %v, want an error naming Options.Exec", err)
	}
}
