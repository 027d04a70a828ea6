package play

// overBudget says whether the run may take no new game: Config.Budget gave
// a reason.
func (r *Runner) overBudget() (why string, over bool) {
	if r.cfg.Budget == nil {
		return "", false
	}
	why = r.cfg.Budget()
	return why, why != ""
}

// budgetSpent stops the matchmaking once the budget is spent, saying so
// once, and ends the run when no game is left in progress: the games under
// way are played out, no new one is taken.
func (r *Runner) budgetSpent() bool {
	why, over := r.overBudget()
	if !over {
		return false
	}
	r.mu.Lock()
	said := r.budgetSaid
	r.budgetSaid = true
	idle := len(r.active) == 0
	r.mu.Unlock()
	if !said {
		r.out(Line{Type: "budget", Note: why})
	}
	if idle && r.stop != nil {
		r.stop()
	}
	return true
}
