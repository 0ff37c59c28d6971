package workers

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// A job is a test's exploration run again in a process of its own to do
// one thing and send its result back (search's shrink jobs: each distinct
// violation the workers saw, shrunk at once in processes of their own):
// the test binary re-run on the test as a worker is, the job in an
// environment variable, its result one JSON value on the pipe at fd 3.

// RunJob runs the test binary (self) again with args (Args) and env
// (NAME=the job) set, and decodes what the process sends back into result;
// what names the process in an error ("the process shrinking ...").
func RunJob(self string, args []string, env, what string, result any) error {
	r, wr, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), env)
	out := &tail{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.ExtraFiles = []*os.File{wr} // fd 3 (workerFD)
	if err := cmd.Start(); err != nil {
		wr.Close()
		return fmt.Errorf("cannot start %s: %v", what, err)
	}
	wr.Close()
	data, _ := io.ReadAll(r)
	exit := cmd.Wait()
	if json.Unmarshal(data, result) != nil {
		return fmt.Errorf("%s ended without its result (%v): %s", what, exit, out.lastLine())
	}
	return nil
}

// JobOf is this process's job, the value of the environment variable name
// (false: none, or the test's exploration call is not its first, where a
// job runs).
func JobOf(call int, name string) (string, bool) {
	v, ok := os.LookupEnv(name)
	if !ok || call != 1 {
		return "", false
	}
	return v, true
}

// SendResult sends a job's result to the process that runs it and exits;
// what names this process in the line said when the parent is gone.
func SendResult(what string, result any) {
	out := os.NewFile(workerFD, "ctrlsim-job")
	if err := json.NewEncoder(out).Encode(result); err != nil {
		fmt.Fprintf(os.Stderr, "operatortest: %s: the parent is gone: %v\n", what, err)
		os.Exit(3)
	}
	out.Close()
	os.Exit(0)
}
