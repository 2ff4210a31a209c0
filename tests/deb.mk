# tests/deb.mk: the Debian packages, built from the release files,
# installed, run, removed and purged (root only; skips otherwise).
TESTS += tests/integration/deb.sh
EXTRA_DIST += tests/integration/deb.sh
