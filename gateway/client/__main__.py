"""`python -m gateway.client` is the `tabletop` command."""

from gateway.client.cli import main

main()
