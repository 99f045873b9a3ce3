"""A matchmaker replica: wired in bootstrap/matchmaker.py."""

from bootstrap.matchmaker import main
from services.common import runtime

if __name__ == "__main__":
    runtime.run(main)
