package main

import (
	"io"
	"log/slog"
	"time"
)

func nowUnix() int64 { return time.Now().Unix() }

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
