#!/bin/sh
# A test agent: its first answer to every decision is an illegal move; its
# retry plays the first legal move. Each request is appended to $AGENT_LOG.
read -r req
[ -n "$AGENT_LOG" ] && printf '%s\n' "$req" >> "$AGENT_LOG"
case "$req" in
*'"attempt":1,'*|*'"attempt":1}'*) echo '{"move":"z99","reasoning":"testing the refusal"}'; exit 0 ;;
esac
mv=$(printf '%s' "$req" | grep -o '"legal_moves":\[{"[a-z]*":"[^"]*"' | sed 's/.*:"//; s/"$//')
printf '{"move":"%s","comment":"retry","reasoning":"first legal move"}\n' "$mv"
