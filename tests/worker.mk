# tests for worker
