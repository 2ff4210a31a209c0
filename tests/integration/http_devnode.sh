#!/bin/sh
# wrk_http / wrk_rpc against chainwatch-devnode: every HTTP fault it
# serves, switched on through its control port, gets its outcome class
# within the deadline; a batch of 100 calls and keep-alive work with it.
. "$top_srcdir/tests/integration/wrk_lib.sh"
wrk_need_devnode
wrk_client wrk_http_client

wrk_devnode
timeout 120 "$CLIENT" "http://127.0.0.1:$devnode_port" devnode \
    "http://127.0.0.1:$devnode_cport"
wrk_exit $? devnode
