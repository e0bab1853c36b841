// Not a compiler test: checks the numpy references used by e2e.py (needs only %python).
// RUN: %python %S/reference_selftest.py
