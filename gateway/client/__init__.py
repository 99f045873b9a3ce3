"""Clients of the gateway: the `tabletop` CLI, random bots, log verification."""
