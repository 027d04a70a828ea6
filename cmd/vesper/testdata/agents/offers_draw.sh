#!/bin/sh
# A test agent (issue 35): it plays the first legal move and offers a draw
# with every move, with a comment and reasoning naming the ply. Its pid is
# appended to $AGENT_PIDS when set.
read -r req
[ -n "$AGENT_PIDS" ] && echo $$ >> "$AGENT_PIDS"
mv=$(printf '%s' "$req" | grep -o '"legal_moves":\[{"[a-z]*":"[^"]*"' | sed 's/.*:"//; s/"$//')
ply=$(printf '%s' "$req" | grep -o '"ply":[0-9]*' | head -n 1 | cut -d: -f2)
printf '{"move":"%s","offer":"draw","comment":"draw? (ply %s)","reasoning":"ply %s: first legal move, and a draw offered"}\n' "$mv" "$ply" "$ply"
