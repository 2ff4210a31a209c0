# devnode/: see the top-level Makefile.am
