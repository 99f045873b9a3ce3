"""The `tabletop` command: a client of the gateway's public API (generated protos, the
game registry for payload types, and the contract/ helpers), with the bots for
`tabletop bots`. The operator's tools (ops/) join it as plugins."""
