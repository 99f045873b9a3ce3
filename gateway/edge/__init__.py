"""The HTTP edge: the gateway's API for browsers and curl (Connect and gRPC-Web), relayed to its gRPC port."""
