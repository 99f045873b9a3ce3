"""Redis as every process meets it: the client and its pools, the commands sent and their
replies, the key names and who owns them, ACL users, health, what a failure means, and the
embedded server that `make run` and the tests start."""
