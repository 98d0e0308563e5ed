"""Durable and committed: the snapshot store, its files and keys, the run lock, the state file."""
