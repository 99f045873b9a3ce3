"""Pure game engines, one package per game. Nothing here does I/O."""
