"""The public contract's helpers: what a client of the gateway and the gateway itself
both need to read its messages, built from the generated protos and the game
registry alone (no server module): every payload an Any carries and its JSON
mapping (payloads.py), a game's words and their wire form (words.py) and the
reason a refusal carries (errors.py)."""
