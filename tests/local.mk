# tests/: unit tests (cmocka, one module each) and integration scripts.
include tests/codec.mk
include tests/devnode.mk
include tests/worker.mk
