# man/: see the top-level Makefile.am
