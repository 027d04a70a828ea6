package main

import (
	"io"
	"log/slog"
	"time"

	"vesper/arbiter"
)

func nowUnix() int64 { return time.Now().Unix() }

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func defaultNoDuties() arbiter.Config { return arbiter.Config{} }
