# debian/: the Debian packaging (dpkg-buildpackage -us -uc -b), shipped in
# the release so that the tarball builds the packages too.
EXTRA_DIST += debian/changelog debian/control debian/copyright \
	debian/rules debian/source/format \
	debian/chainwatch.install debian/chainwatch.postinst \
	debian/chainwatch.postrm debian/chainwatch.lintian-overrides \
	debian/chainwatch-devnode.install \
	debian/chainwatch-devnode.lintian-overrides
