"""The edge process (Connect and gRPC-Web over HTTP/1.1): wired in bootstrap/edge.py."""

from bootstrap.edge import main
from services.common import runtime

if __name__ == "__main__":
    runtime.run(main)
