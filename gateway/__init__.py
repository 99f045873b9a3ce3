"""The client-facing gateway and the `tabletop` command-line client."""
