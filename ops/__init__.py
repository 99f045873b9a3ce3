"""The operator's tools: `tabletop admin` (the event store read directly, as its admin),
match archives, and `tabletop verify` (a finished match re-derived with the server's own
rules). They import the server's modules; the player's command (cli/) does not, and takes
these as plugins (cli/plugins.py, entry points in pyproject.toml)."""
