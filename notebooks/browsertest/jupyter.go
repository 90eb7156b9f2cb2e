package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// jupyter is a classic Jupyter Notebook server: one this command started
// (cmd set) or one it was pointed at (url set).
type jupyter struct {
	cmd   *exec.Cmd
	url   string
	port  int
	token string
	log   *os.File
	done  chan struct{} // closed when the server process has exited
}

// startJupyter starts the server bin on 127.0.0.1 at a free port with a
// random token, serving dir, and waits until its API answers. Its
// runtime and config directories are fresh ones under tmp, so that the
// user's settings (extensions, passwords) play no part; kernelspecs come
// from the usual data directories. The server's output goes to logPath.
func startJupyter(ctx context.Context, bin, dir, tmp, logPath string) (*jupyter, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	args := []string{"--no-browser", "--ip=127.0.0.1", fmt.Sprintf("--port=%d", port), "--port-retries=0",
		"--notebook-dir=" + dir}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-root")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	// The token goes through the environment, not the command line that
	// every user of the machine can read.
	cmd.Env = append(withoutEnv(os.Environ(), "GOMATVIS_HEADLESS", "JUPYTER_TOKEN", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR"),
		"JUPYTER_TOKEN="+token,
		"JUPYTER_RUNTIME_DIR="+filepath.Join(tmp, "jupyter-runtime"),
		"JUPYTER_CONFIG_DIR="+filepath.Join(tmp, "jupyter-config"))
	// Its own process group: the kernels and the programs they run are
	// started by the server, and whatever of them outlives it is stopped
	// through that group (see stop).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	j := &jupyter{cmd: cmd, port: port, token: token, log: log, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(j.done)
	}()
	if err := j.waitReady(ctx, 90*time.Second); err != nil {
		return nil, errors.Join(err, j.stop())
	}
	return j, nil
}

// useJupyter checks that the server at url answers with token.
func useJupyter(ctx context.Context, url, token string) (*jupyter, error) {
	if token == "" {
		return nil, errors.New("-server needs the server's token in $JUPYTER_TOKEN")
	}
	j := &jupyter{url: strings.TrimSuffix(url, "/"), token: token}
	return j, j.waitReady(ctx, 90*time.Second)
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// randomToken returns 24 random bytes in hex.
func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// withoutEnv returns env without the variables named.
func withoutEnv(env []string, names ...string) []string {
	var out []string
next:
	for _, kv := range env {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// base is the server's root URL.
func (j *jupyter) base() string {
	if j.url != "" {
		return j.url
	}
	return fmt.Sprintf("http://127.0.0.1:%d", j.port)
}

// notebookURL is the classic UI's page for the notebook file name.
func (j *jupyter) notebookURL(name string) string {
	return fmt.Sprintf("%s/notebooks/%s?token=%s", j.base(), name, j.token)
}

// api calls the server's REST API and decodes a JSON answer into v (if
// not nil).
func (j *jupyter) api(method, path string, v any) error {
	req, err := http.NewRequest(method, j.base()+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "token "+j.token)
	c := http.Client{Timeout: 30 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %.200s", method, path, resp.Status, body)
	}
	if v != nil {
		return json.Unmarshal(body, v)
	}
	return nil
}

// waitReady polls the API until it answers with our token.
func (j *jupyter) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		err := j.api("GET", "/api/status", nil)
		if err == nil {
			return nil
		}
		select {
		case <-j.done: // nil (never ready) for a server this command did not start
			return fmt.Errorf("jupyter exited before it was ready (%v); its log: %s", j.cmd.ProcessState, j.log.Name())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("jupyter at %s not ready after %v (last: %w)", j.base(), limit, err)
		}
	}
}

// download writes the notebook name as the server has it (after the
// page saved it) to path.
func (j *jupyter) download(name, path string) error {
	var file struct {
		Content json.RawMessage `json:"content"`
	}
	if err := j.api("GET", "/api/contents/"+name+"?type=notebook&content=1", &file); err != nil {
		return err
	}
	return os.WriteFile(path, file.Content, 0o644)
}

// deleteSessions shuts every session's kernel down.
func (j *jupyter) deleteSessions() error {
	var sessions []struct {
		ID string `json:"id"`
	}
	if err := j.api("GET", "/api/sessions", &sessions); err != nil {
		return err
	}
	var errs []error
	for _, s := range sessions {
		errs = append(errs, j.api("DELETE", "/api/sessions/"+s.ID, nil))
	}
	return errors.Join(errs...)
}

// stop shuts the kernels down through the API, stops the server by its
// PID (SIGTERM, then SIGKILL after 20 s) and then kills whatever is left
// in its process group: a kernel or a cell's program that did not go
// with it. The group is killed right after the server was waited for;
// while any member lives, its id cannot be reused by another process.
func (j *jupyter) stop() error {
	if j.cmd == nil {
		return nil // not ours to stop
	}
	defer j.log.Close()
	var errs []error
	select {
	case <-j.done:
	default:
		if err := j.deleteSessions(); err != nil {
			errs = append(errs, fmt.Errorf("shutting the kernels down: %w", err))
		}
		pid := j.cmd.Process.Pid
		_ = syscall.Kill(pid, syscall.SIGTERM)
		select {
		case <-j.done:
		case <-time.After(20 * time.Second):
			errs = append(errs, fmt.Errorf("jupyter (pid %d) ignored SIGTERM for 20 s: killed", pid))
			_ = syscall.Kill(pid, syscall.SIGKILL)
			<-j.done
		}
	}
	if err := syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL); err == nil {
		fmt.Printf("browsertest: killed what was left in jupyter's process group %d\n", j.cmd.Process.Pid)
	}
	return errors.Join(errs...)
}
