# bench/: see the top-level Makefile.am
