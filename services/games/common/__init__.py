"""The engine contract every game implements, and pure helpers they share."""
