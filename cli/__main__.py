"""`python -m cli` is the `tabletop` command."""

from cli.main import main

main()
