# supervisor/: see the top-level Makefile.am
