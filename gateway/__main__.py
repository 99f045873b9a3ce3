"""The gateway process: wired in bootstrap/gateway.py."""

from bootstrap.gateway import main
from services.common import runtime

if __name__ == "__main__":
    runtime.run(main)
