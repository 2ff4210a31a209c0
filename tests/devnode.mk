# tests for devnode
