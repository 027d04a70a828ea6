#!/bin/sh
# A test agent (issue 35) that answers as a chat model does: it thinks out
# loud, then gives its move in a fenced JSON block.
read -r req
mv=$(printf '%s' "$req" | grep -o '"legal_moves":\[{"[a-z]*":"[^"]*"' | sed 's/.*:"//; s/"$//')
printf 'Let me look at the board. The first legal move looks fine to me.\n\n```json\n{"move": "%s", "reasoning": "thought out loud"}\n```\n' "$mv"
