# etc/: see the top-level Makefile.am
