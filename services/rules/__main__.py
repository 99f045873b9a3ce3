"""A rules process: wired in bootstrap/rules.py."""

from bootstrap.rules import main
from services.common import runtime

if __name__ == "__main__":
    runtime.run(main)
