// Package interop runs, from Go tests, the clients that agents and hosts
// actually use, installed beside this file by `npm ci --prefix
// conformance/interop` and pinned by its package-lock.json: the official
// MCP TypeScript SDK (@modelcontextprotocol/sdk, what most MCP hosts are
// built on) and nostr-tools (with ws, Node 20 having no WebSocket of its
// own). Our own relay and the Go SDKs agree with our code by construction;
// these do not, which is why the interoperability tests drive them.
//
// It is for tests only; nothing in vesper's binary imports it.
package interop

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// ErrNotInstalled is wrapped by Node's error on a machine without node or
// without the pinned packages: tests skip on it, unless
// VESPER_REQUIRE_INTEROP is set (.ci/run sets it, so CI cannot skip).
var ErrNotInstalled = errors.New("the interop clients are not installed: run `npm ci --prefix conformance/interop` from the repository root (needs node)")

// Dir is this directory, where package.json, node_modules and the
// scripts the tests run are.
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Dir(file)
}

// Node returns the node binary, or an error wrapping ErrNotInstalled when
// node or one of the pinned packages is missing.
func Node() (string, error) {
	bin, err := exec.LookPath("node")
	if err == nil {
		for _, pkg := range []string{"@modelcontextprotocol/sdk", "nostr-tools", "ws"} {
			if _, err = os.Stat(filepath.Join(Dir(), "node_modules", pkg, "package.json")); err != nil {
				break
			}
		}
	}
	if err != nil {
		return "", fmt.Errorf("%w (%v)", ErrNotInstalled, err)
	}
	return bin, nil
}

// NodeOrSkip is Node for a test: it skips when the clients are missing,
// or fails when VESPER_REQUIRE_INTEROP says they must be there.
func NodeOrSkip(t testing.TB) string {
	t.Helper()
	bin, err := Node()
	if err != nil {
		if os.Getenv("VESPER_REQUIRE_INTEROP") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return bin
}

// Script is the path of one of this directory's scripts, to run with
// Node's binary (its imports resolve against node_modules here).
func Script(name string) string {
	return filepath.Join(Dir(), name)
}
