# tests for codec
