"""The match process: wired in bootstrap/match.py."""

from bootstrap.match import main
from services.common import runtime

if __name__ == "__main__":
    runtime.run(main)
