package main

import (
	"context"
	"fmt"
	"os"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
)

// browser is a headless Chromium this command started, and rod's
// connection to it.
type browser struct {
	launcher *launcher.Launcher
	rod      *rod.Browser
}

// startBrowser launches bin headless with its profile in userDir. Rod's
// launcher is told the binary, so it never downloads one, and not to use
// leakless (a helper binary it would unpack into the temporary folder):
// stop kills the browser's process group by its PID instead.
func startBrowser(ctx context.Context, bin, userDir string, noSandbox bool) (*browser, error) {
	if err := os.MkdirAll(userDir, 0o700); err != nil {
		return nil, err
	}
	l := launcher.New().Context(ctx).
		Bin(bin).
		Headless(true).
		NoSandbox(noSandbox).
		Leakless(false).
		UserDataDir(userDir).
		Set("disable-gpu").
		Set("window-size", "1280,1000")
	u, err := l.Launch()
	if err != nil {
		if l.PID() != 0 {
			l.Kill()
		}
		return nil, fmt.Errorf("launching %s: %w", bin, err)
	}
	b := rod.New().ControlURL(u).Context(ctx)
	if err := b.Connect(); err != nil {
		l.Kill()
		return nil, fmt.Errorf("connecting to %s: %w", bin, err)
	}
	return &browser{launcher: l, rod: b}, nil
}

// stop closes the browser, kills its process group by PID (rod's Kill)
// and waits for it to exit; the caller removes its profile directory.
func (b *browser) stop() {
	_ = b.rod.Close()
	b.launcher.Kill()
	b.launcher.Cleanup()
}
