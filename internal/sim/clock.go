package sim

// clock stamps one match's events. It keeps simulated time (raw) and the
// stamp of the last event: stamps strictly increase, because fold order
// breaks created_at ties by id and a tie could put a move before the one
// it answers.
type clock struct {
	end  int64 // Config.End
	live int64 // seconds of stamped time after end; 0: no compression
	raw  int64
	last int64
}

// liveHorizon is the simulated time after End that takes half of the live
// window: the window holds everything, ever more compressed.
const liveHorizon = 2 * 86400

func newClock(start, end, live int64) clock {
	return clock{end: end, live: live, raw: start, last: start - 1}
}

// stamp maps simulated time to created_at: unchanged up to end, then
// squeezed into (end, end+live]: an offset d after end becomes
// live*d/(d+liveHorizon), rounded up so that nothing after end maps to end.
func (c *clock) stamp(raw int64) int64 {
	if c.live <= 0 || raw <= c.end {
		return raw
	}
	d := raw - c.end
	return c.end + (c.live*d+d+liveHorizon-1)/(d+liveHorizon)
}

// advance moves simulated time on by gap seconds and returns the stamp of
// an event made then.
func (c *clock) advance(gap int64) int64 {
	c.raw += max(gap, 1)
	t := max(c.stamp(c.raw), c.last+1)
	c.last = t
	return t
}
