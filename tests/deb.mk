# tests/deb.mk: the Debian packages, built from the release files,
# installed, run, removed and purged (root only; skips otherwise).
# It is among the first of TESTS (Makefile.am).
EXTRA_DIST += tests/integration/deb.sh
