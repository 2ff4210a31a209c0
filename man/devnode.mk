# man/chainwatch-devnode.1
dist_man_MANS += man/chainwatch-devnode.1
