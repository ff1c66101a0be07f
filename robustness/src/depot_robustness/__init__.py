"""Depot's robustness suite: many clients' random traffic against a real depotd while faults are injected, every
recorded history checked — the watch guarantees, linearizability of the writes and reads against a key-value model
with preconditions, no acknowledged write lost, and after every fault the daemon's state equal to its source."""
