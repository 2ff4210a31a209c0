# workers/: see the top-level Makefile.am
