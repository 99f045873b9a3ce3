"""Bots for every game: one `Policy` interface, a random policy and an information-set
search that decides from a seat's view and legal actions only (docs/bots.md).

Pure: no grpc or redis here; the gateway client and the matchmaker adapt it to their transports."""
