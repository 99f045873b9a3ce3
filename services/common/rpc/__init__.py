"""How processes call each other: typed ports and their adapters (in process, or over gRPC as
Exchange streams, batches or plain calls), the server every process runs, and its gate."""
