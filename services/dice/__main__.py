"""The dice process: wired in bootstrap/dice.py."""

from bootstrap.dice import main
from services.common import runtime

if __name__ == "__main__":
    runtime.run(main)
