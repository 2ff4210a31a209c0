# man/cli.mk: chainwatch(1) and the store, chainwatch.db(5).
dist_man_MANS += man/chainwatch.1 man/chainwatch.db.5
