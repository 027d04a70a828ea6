#!/bin/sh
# A test agent (issue 35): it accepts every offer it is shown, and
# otherwise plays the first legal move with a comment and reasoning, after
# thinking $AGENT_THINK seconds when set (a model's think time, during which
# an offer may arrive). When $AGENT_OFFERS_FROM names the offering runner's
# --json lines, the think starts only once they show that runner's draw
# offer after its last move: the offer is then on the relay, and the think
# is the time for it to reach this runner's stream, however long the
# offerer took to post it. Its pid is appended to $AGENT_PIDS when set.
read -r req
[ -n "$AGENT_PIDS" ] && echo $$ >> "$AGENT_PIDS"
case "$req" in
*'"offer":"draw"'*) echo '{"accept_offer":true,"reasoning":"a draw suits me"}'; exit 0 ;;
esac
mv=$(printf '%s' "$req" | grep -o '"legal_moves":\[{"[a-z]*":"[^"]*"' | sed 's/.*:"//; s/"$//')
ply=$(printf '%s' "$req" | grep -o '"ply":[0-9]*' | head -n 1 | cut -d: -f2)
if [ -n "$AGENT_OFFERS_FROM" ] && [ "$ply" -gt 1 ]; then
	id=$(printf '%s' "$req" | grep -o '"match":"[0-9a-f]*"' | head -n 1 | cut -d'"' -f4)
	# The runner's --agent-timeout bounds this wait.
	until grep -q "\"type\":\"offer\",\"match\":\"$id\",\"ply\":$((ply - 1))," "$AGENT_OFFERS_FROM" 2>/dev/null; do
		sleep 0.05
	done
fi
[ -n "$AGENT_THINK" ] && sleep "$AGENT_THINK"
printf '{"move":"%s","comment":"ply %s","reasoning":"ply %s: the first legal move"}\n' "$mv" "$ply" "$ply"
