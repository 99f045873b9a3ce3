"""The deck process: wired in bootstrap/deck.py."""

from bootstrap.deck import main
from services.common import runtime

if __name__ == "__main__":
    runtime.run(main)
