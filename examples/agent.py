#!/usr/bin/env python3
"""A minimal `vesper play --agent` agent: stdlib only.

vesper runs it once per decision, writes one JSON object (the request) on
its stdin and reads one JSON object (the answer) from its stdout. Replace
choose() with a call to your model: the request carries what it needs
(game, color, fen, pgn, board, legal_moves, deadline, offer, and on a retry
the refusal's rule and reason).
"""
import json
import random
import sys


def choose(req):
    legal = req["legal_moves"]  # [{"uci": "e2e4", "san": "e4"}, ...], [{"point": "h8"}, ...] or [{"column": "d"}, ...]
    if req.get("offer") == "draw" and req["ply"] > 80:
        return {"accept_offer": True, "reasoning": "a long game: a draw is fine"}
    if req["game"] == "chess":
        # Prefer a capture or a check, as a beginner would.
        sharp = [m for m in legal if "x" in m["san"] or "+" in m["san"]]
        move = random.choice(sharp or legal)["san"]
    elif req["game"] == "connect4":
        # Connect Four: prefer the columns nearest the centre (d).
        best = min(abs(ord(m["column"]) - ord("d")) for m in legal)
        move = random.choice([m for m in legal if abs(ord(m["column"]) - ord("d")) == best])["column"]
    else:
        # Gomoku: stay near the stones already played.
        played = set(req["moves"])
        near = [m for m in legal if any(abs(ord(m["point"][0]) - ord(p[0])) <= 1 and abs(int(m["point"][1:]) - int(p[1:])) <= 1 for p in played)]
        move = random.choice(near or legal)["point"]
    answer = {"move": move, "reasoning": f"attempt {req['attempt']}: picked {move} from {len(legal)} legal moves"}
    if req.get("refusal"):
        answer["comment"] = "oops, my last answer was refused: " + req["refusal"]["reason"]
    return answer


if __name__ == "__main__":
    request = json.loads(sys.stdin.readline())
    print(json.dumps(choose(request)))
