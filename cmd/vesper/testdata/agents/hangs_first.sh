#!/bin/sh
# A test agent that hangs on its first move of each game (ply 1 or 2) and
# plays the first legal move afterwards. Its pid goes to $AGENT_PIDS.
read -r req
case "$req" in
*'"ply":1,'*|*'"ply":2,'*) [ -n "$AGENT_PIDS" ] && echo $$ >> "$AGENT_PIDS"; exec sleep 600 ;;
esac
mv=$(printf '%s' "$req" | grep -o '"legal_moves":\[{"[a-z]*":"[^"]*"' | sed 's/.*:"//; s/"$//')
printf '{"move":"%s"}\n' "$mv"
