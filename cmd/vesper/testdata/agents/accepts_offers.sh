#!/bin/sh
# A test agent (issue 35): it accepts every offer it is shown, and
# otherwise plays the first legal move with a comment and reasoning, after
# thinking $AGENT_THINK seconds when set (a model's think time, during which
# an offer may arrive). Its pid is appended to $AGENT_PIDS when set.
read -r req
[ -n "$AGENT_PIDS" ] && echo $$ >> "$AGENT_PIDS"
case "$req" in
*'"offer":"draw"'*) echo '{"accept_offer":true,"reasoning":"a draw suits me"}'; exit 0 ;;
esac
[ -n "$AGENT_THINK" ] && sleep "$AGENT_THINK"
mv=$(printf '%s' "$req" | grep -o '"legal_moves":\[{"[a-z]*":"[^"]*"' | sed 's/.*:"//; s/"$//')
ply=$(printf '%s' "$req" | grep -o '"ply":[0-9]*' | head -n 1 | cut -d: -f2)
printf '{"move":"%s","comment":"ply %s","reasoning":"ply %s: the first legal move"}\n' "$mv" "$ply" "$ply"
