"""The event store: the port and its in-memory twin (event_store), the Redis Streams backend
(redis_store) and an event as the log keeps it (log_entry)."""
