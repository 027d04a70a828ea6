package sim

// clock stamps one match's events. It keeps simulated time (raw) and the
// stamp of the last event: stamps strictly increase, because fold order
// breaks created_at ties by id and a tie could put a move before the one
// it answers.
type clock struct {
	end   int64 // Config.End
	ratio int64 // simulated seconds per stamped second after end; 0: none
	raw   int64
	last  int64
}

func newClock(start, end, ratio int64) clock {
	return clock{end: end, ratio: ratio, raw: start, last: start - 1}
}

// stamp maps simulated time to created_at: unchanged up to end, then
// compressed by ratio (rounded up, so time after end never maps to end).
func (c *clock) stamp(raw int64) int64 {
	if c.ratio <= 0 || raw <= c.end {
		return raw
	}
	return c.end + (raw-c.end+c.ratio-1)/c.ratio
}

// advance moves simulated time on by gap seconds and returns the stamp of
// an event made then.
func (c *clock) advance(gap int64) int64 {
	c.raw += max(gap, 1)
	t := max(c.stamp(c.raw), c.last+1)
	c.last = t
	return t
}
