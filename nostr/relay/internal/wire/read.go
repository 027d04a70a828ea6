package wire

import (
	"fmt"
	"io"
	"strings"

	ws "github.com/coder/websocket"
)

// readLoop reads frames and hands them, in order, to the dispatcher. The
// two are apart so that frames that arrive while the dispatcher checks or
// delivers (a backfill page) queue up, and the dispatcher then checks the
// signatures of a whole run of events at once (nostr/batch), several times
// cheaper than one by one.
func (c *Conn) readLoop() {
	frames := make(chan []byte, maxRun)
	go c.dispatch(frames)
	defer close(frames)
	for {
		msg, err := c.readMessage()
		if err != nil {
			switch {
			case strings.Contains(err.Error(), "read limited at"):
				err = fmt.Errorf("a message over %d bytes", c.lim.MaxFrame)
			case ws.CloseStatus(err) == ws.StatusMessageTooBig:
				// The relay's close frame: a message of ours was over its
				// limit (strfry's maxWebsocketPayloadSize), not one of its
				// over ours.
				err = fmt.Errorf("the relay closed the connection: a message we sent was too big for it (%v)", err)
			}
			c.Close(fmt.Errorf("%w: %v", ErrClosed, err))
			return
		}
		if msg == nil {
			continue // oversized, dropped
		}
		if !c.reserve(len(msg)) {
			return
		}
		select {
		case frames <- msg:
		case <-c.Ctx.Done():
			return
		}
	}
}

// readMessage reads the next message, keeping at most lim.MaxMessage bytes
// of it: a longer one is read through and dropped (nil, counted as
// RejectOversized), so it costs bandwidth, never memory.
func (c *Conn) readMessage() ([]byte, error) {
	_, r, err := c.ws.Reader(c.Ctx)
	if err != nil {
		return nil, err
	}
	msg, err := io.ReadAll(io.LimitReader(r, c.lim.MaxMessage+1))
	if err != nil {
		return nil, err
	}
	if int64(len(msg)) <= c.lim.MaxMessage {
		return msg, nil
	}
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return nil, err
	}
	c.rejected(RejectOversized, fmt.Errorf("a message of %d bytes, over %d", int64(len(msg))+n, c.lim.MaxMessage))
	return nil, nil
}

// reserve waits until n more bytes fit in the queue (one frame always
// fits in an empty queue). It reports false when the connection ended.
func (c *Conn) reserve(n int) bool {
	for {
		c.qmu.Lock()
		if c.queued == 0 || c.queued+n <= c.lim.QueueBytes {
			c.queued += n
			c.qmu.Unlock()
			return true
		}
		c.qmu.Unlock()
		select {
		case <-c.space:
		case <-c.Ctx.Done():
			return false
		}
	}
}

// release gives back the bytes of handled frames.
func (c *Conn) release(n int) {
	c.qmu.Lock()
	c.queued -= n
	c.qmu.Unlock()
	select {
	case c.space <- struct{}{}:
	default:
	}
}

// Queued is the bytes of frames read and not yet handled.
func (c *Conn) Queued() int {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return c.queued
}
