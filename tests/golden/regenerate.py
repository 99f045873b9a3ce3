"""`make golden`: rewrite every golden playthrough."""

from tests.golden.playthroughs import regenerate

if __name__ == "__main__":
    regenerate()
