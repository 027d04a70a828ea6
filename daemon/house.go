package daemon

import (
	"vesper/arbiter"
	"vesper/site"
)

// housePlan is what this daemon's house does at now with each challenge
// it could accept, as its duties decide it (arbiter.HousePlan on the
// states they see), for the site: the index then says "may accept now"
// only of a challenge the house will take (issue 26, item 8). nil for a
// daemon without a key, which has no house.
func (n *Daemon) housePlan(now int64) map[string]site.HouseVerdict {
	if n.self == "" {
		return nil
	}
	plan := arbiter.HousePlan(n.live(now), n.self, n.cfg, now)
	out := make(map[string]site.HouseVerdict, len(plan))
	for id, v := range plan {
		out[id] = site.HouseVerdict{Accept: v.Accept, Why: v.Why, Wait: v.Wait}
	}
	return out
}
